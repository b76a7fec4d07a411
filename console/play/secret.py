"""The round's secret and its one holder.

A round's secret is the card, the target and where the giver points while choosing. It is bound
when the round is dealt (a new game, the next round, a tie-break round, a redeal) to exactly one
holder: the token of the phone that holds the giver's seat at that moment, or the panel itself
(`PANEL`: the giver plays on the joystick). Who may see it follows from that binding alone,
never from the screen on show or from who sits in the giver's seat now: the views send the card
and the target only to the connection whose token is the holder (`web.views`), the panel draws
the card only for `PANEL` (`view.render`), the joystick opens and works the secret screen only
for `PANEL` (`controller`), and only the holder's phone may choose the target (`remote`).

A seat that changes hands (taken, left, freed, a restart) never carries the secret: its new
occupant is not the holder. Before the target is chosen the round would then wait for a holder
who is gone, so the deal is made again for the new occupant (`rebound`): in the cards variant a
`redeal` in the record (the seen card goes to the discards and the next is drawn), in `free`
just the binding (nothing was chosen yet; the pointing is dropped). Once the target is chosen the
holder keeps it: the new occupant gives the clues with what a guesser sees, until the next round.
A token brought to another phone (a reload, the giver's second phone) is the same holder.
"""

from __future__ import annotations

from dataclasses import replace

from console.game import rules
from console.game.rules import GameState, Redeal
from console.view.ui import CENTRE, PANEL, Ui

SETTING = "secret_holder"  # the store setting that keeps the binding across a restart


def occupant(game: GameState, ui: Ui) -> str:
    """Who holds the giver's seat now: its phone's token digest, or the panel."""
    return dict(ui.phones).get(game.giver, PANEL)


def dealt(game: GameState, ui: Ui) -> Ui:
    """`ui` with the round just dealt bound to the giver seat's occupant."""
    return replace(ui, secret_holder=occupant(game, ui))


def rebound(game: GameState | None, ui: Ui, t: float) -> tuple[GameState, Ui, tuple] | None:
    """The new deal when the giver's seat has changed hands before the target was chosen:
    (game, ui, actions to store); None when nothing is to change."""
    if game is None or game.phase != "choose_target" or ui.secret_holder == occupant(game, ui):
        return None
    actions: tuple = (Redeal(),) if game.variant == "cards" else ()
    for action in actions:
        game = rules.apply(game, action)
    return game, dealt(game, _unpointed(ui, t)), actions


def _unpointed(ui: Ui, t: float) -> Ui:
    """The panel off the secret screen (also under a menu over it) and the pointing dropped."""
    changes: dict = dict(card_choice=0, cursor=CENTRE, armed_at=-1.0)
    if ui.screen == "secret":
        changes.update(screen="handoff", since=t)
    if ui.menu_return is not None and ui.menu_return[0] == "secret":
        changes["menu_return"] = ("handoff", t)
    return replace(ui, **changes)


def deal_key(game: GameState) -> list:
    """What tells one deal from another within a game: a round, and each card drawn in it."""
    return [game.seed, game.round, game.reshuffles, len(game.discards)]


def kept(before: object, game: GameState, ui: Ui) -> list:
    """The bindings as the store keeps them (a digest, never a token): this deal's, and the one
    before (the app keeps a deal's binding before its action, so a restart between the two still
    finds the binding of the deal the record reached)."""
    binding = [deal_key(game), ui.secret_holder]
    earlier = [b for b in before if b != binding][-1:] if isinstance(before, list) else []
    return earlier + [binding]


def restored(game: GameState, bindings: object) -> str | None:
    """The holder kept for this deal before a restart; None (nobody) when none was."""
    for binding in bindings if isinstance(bindings, list) else ():
        if isinstance(binding, list) and len(binding) == 2 and binding[0] == deal_key(game) and (
                isinstance(binding[1], str)):
            return binding[1]
    return None
