"""What an intent does, whoever makes it: the one handler from a player's intent to rules actions.

`act(game, ui, player, intent, t, rng)` returns a `Step` (the game and UI it leads to, and the
actions to store before anything shows them) or raises a `RuleError` with the message and key
the player is told: a `Refusal` where this module decides, the engine's own where it does (whose
turn it is, an occupied cell, a cell that is not on the card). A refused intent changes nothing.

A guess goes into the record the moment it is placed, so a power cut never loses a pawn the panel
showed. Until anyone else acts it stays *pending*: its player may take it back (a `take_back` in
the record) or confirm it, and anyone else's next intent lets it stand first. The reveal after a
round's last pawn waits for that.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import NamedTuple

from console.game import clue as clue_rules, rules
from console.game.clue_text import display_word, typed_words
from console.game.rules import Action, GameState, Pawn
from console.game.seating import PANEL, dealt, is_computer, redeal, seat_computers
from console.play import intents
from console.play.intents import Intent, Player, Refusal
from console.view import screens
from console.view.ui import CENTRE, MENU_SCREENS, Ui

GUESS_PHASES = ("guess1", "guess2")
BRIGHTNESS_STEP = 0.1
MIN_BRIGHTNESS = 0.2  # below this the 8-bit drive merges dark board cells


class Step(NamedTuple):
    """What an input does: the game and UI it leads to, and the actions to store first."""

    game: GameState | None
    ui: Ui
    actions: tuple[Action, ...] = ()
    abandon: bool = False  # the host chose a new game over the stored one
    stop: bool = False  # the host chose to power off (host menu) or to quit (the simulator)


def act(game: GameState | None, ui: Ui, player: Player, intent: Intent, t: float, rng: random.Random) -> Step:
    """What `player`'s `intent` does at time t; `rng` picks a new game's seed and random first giver."""
    return _under_the_menu(ui, _act(game, ui, player, intent, t, rng))


def _under_the_menu(ui: Ui, step: Step) -> Step:
    """An intent done while the panel shows a menu over the game (the host menu, brightness, the
    quit question) changes the game under it: the menu stays, and closing it shows the game as it
    now stands (it returned to the screen it was opened over, which may no longer fit the game).
    An intent that ends the game (the host abandons it) closes the menu with it."""
    if (ui.menu_return is None or ui.screen not in MENU_SCREENS or step.ui.screen in MENU_SCREENS
            or step.game is None):
        return step
    kept = replace(step.ui, screen=ui.screen, since=ui.since, choice=ui.choice, menu_item=ui.menu_item,
                   menu_return=(step.ui.screen, step.ui.since))
    return step._replace(ui=kept)


_HOST_ONLY = {intents.HandOver: "only the host can free another phone's seat"}


def _act(game: GameState | None, ui: Ui, player: Player, intent: Intent, t: float, rng: random.Random) -> Step:
    kind = type(intent)
    if kind in intents.HOST_INTENTS and not (player.host or ui.seating.is_host(player.holder)):
        raise Refusal("host_only", _HOST_ONLY.get(kind, "only the host can do that (the first seat taken, or "
                                                        "whoever gave the host PIN)"))
    if kind in intents.SEAT_INTENTS:
        return Step(game, replace(ui, seating=_seated(game, ui, player, intent)))
    if kind is intents.NewGame:
        return _new_game(game, ui, intent, t, rng)
    if kind is intents.Abandon:
        return _abandon(game, ui, t)
    if kind is intents.Brightness:
        level = min(1.0, max(MIN_BRIGHTNESS, round(ui.brightness + BRIGHTNESS_STEP * intent.step, 2)))
        return Step(game, replace(ui, brightness=level))
    if kind is intents.ClueCheck:
        return Step(game, replace(ui, clue_check=intent.on))
    if kind is intents.ComputerPace:
        return Step(game, replace(ui, fast_computers=intent.fast))
    if ui.screen == "resume":
        raise Refusal("resume_on_panel", "the panel asks whether to carry on the stored game: answer there, "
                      "or the host starts a new one")
    if game is None or rules.is_terminal(game) or ui.screen in ("idle", "setup", "brightness"):
        raise Refusal("no_game", "no game is under way: the host starts one")
    _at_the_table(game, ui, player)
    if kind in (intents.TakeBack, intents.Confirm):
        if ui.pending is None or ui.pending.player != player.seat:
            if kind is intents.TakeBack:
                raise Refusal("nothing_to_take_back", "you have no pawn to take back (once the next player acts, "
                              "it stays)")
            raise Refusal("nothing_to_confirm", "you have no pawn waiting to be confirmed")
        if kind is intents.Confirm:
            return let_stand(game, ui, t)
        back = rules.apply(game, rules.TakeBack())
        return Step(back, replace(ui, screen="play", cursor=ui.pending.cell, pending=None), (rules.TakeBack(),))
    if ui.pending is None:
        return _round(game, ui, player, intent, t)
    stood = let_stand(game, ui, t)  # someone else acts: the pending pawn stands from now on
    if kind is intents.Next and stood.ui.screen == "reveal" and ui.screen != "reveal":
        return stood  # the round's last pawn: the intent that reveals is used up
    return _round(stood.game, stood.ui, player, intent, t)


def _at_the_table(game: GameState, ui: Ui, player: Player) -> None:
    """A player acts in the game for a seat of it that it holds; the joystick is the box itself,
    at the table whoever holds the seats, but acts only for the seats it holds."""
    if player.holder != PANEL:
        if player.seat is None:
            raise Refusal("choose_colour", "choose a colour first")
        if player.seat >= game.players:
            raise Refusal("watching", f"this game has {game.players} players: your colour is watching",
                          players=game.players)
    if player.seat is not None and ui.seating.holder(player.seat) != player.holder:
        raise Refusal("seat_gone", "this seat is no longer yours: join again with the code on the panel")


def _round(game: GameState, ui: Ui, player: Player, intent: Intent, t: float) -> Step:
    kind = type(intent)
    if kind in (intents.PointAt, intents.Place):
        if game.phase not in GUESS_PHASES:
            raise Refusal("not_guessing", f"nobody guesses now (the game is at {game.phase})")
        rules.check(game, rules.Place(intent.cell, player.seat))  # its turn and its cell: the engine's refusals
        ui = ui.with_cursor(intent.cell)
        return _place(game, ui, t) if kind is intents.Place else Step(game, ui)
    if kind is intents.ChooseTarget:
        if player.seat != game.giver:
            raise _only_the_giver(game, "chooses the target")
        if game.phase != "choose_target":
            raise Refusal("target_chosen", "the target is chosen already")
        if not ui.seating.holds_secret(player.holder):
            raise Refusal("not_dealt_to_you", "this round's card went to whoever held this colour when it was "
                          "dealt: it is theirs to choose (this colour gets a card of its own next round)")
        return apply_action(game, replace(ui, cursor=CENTRE), t, rules.ChooseTarget(intent.cell))
    if kind in (intents.GiveClue, intents.Pass):
        if player.seat != game.giver:
            raise _only_the_giver(game, "gives the clues")
        if kind is intents.Pass and game.phase != "clue2":
            raise Refusal("pass_second_only", "pass is only possible instead of the second clue")
        if game.phase not in ("clue1", "clue2", "guess1", "guess2"):
            raise Refusal("not_now", f"not possible now (the game is at {game.phase})")
        if kind is intents.Pass:
            return apply_action(game, ui, t, rules.SkipClue())
        rules.check(game, rules.Clue())  # a clue at all now: the engine's refusal, before the words are read
        if intent.text is None and player.holder != PANEL and game.computers_guess():
            raise Refusal("clue_typed_for_computers", "computer players read the clue: type it")
        clue = rules.Clue() if intent.text is None else written_clue(game, ui, intent)
        step = apply_action(game, ui, t, clue)
        return step._replace(ui=replace(step.ui, clue_screen=screens.clue_seconds((clue,)))) if clue.written else step
    # Next: from the reveal, whatever stage it shows, to the next round; the tie-break notice to its hand-off
    if ui.screen == "reveal":
        return apply_action(game, replace(ui, cursor=CENTRE), t, rules.Next())
    if ui.screen == "tiebreak":
        return Step(game, to(ui, "handoff", t))
    raise Refusal("not_now", f"next is not possible now (the game is at {game.phase})")


# The clue rules of the game, which the host's house-rule switch turns off (the table keeps them
# then, as with a spoken clue); what a clue's characters may be is never off: every screen shows it.
GAME_RULES = ("coordinate", "colour_name", "comparative", "too_many_words")


def written_clue(game: GameState, ui: Ui, intent: intents.GiveClue) -> rules.Clue:
    """The clue `intent` writes: its words as the room is shown them (the check's display form).
    Held to the clue rules in the giver's language and English (game/clue.py) unless the host
    switched the check off; a clue that breaks one is a Refusal whose key (`clue_<rule>`) and
    `word` the giver's phone says in its language."""
    if intent.lang not in clue_rules.LANGUAGES:
        raise Refusal("bad_message", f"no clue check speaks {intent.lang[:20]!r}")
    verdict = clue_rules.check_clue(intent.text, intent.lang, second=game.phase == "clue2")
    if verdict.ok:
        return rules.Clue(verdict.words, intent.lang, checked=ui.clue_check)
    if ui.clue_check or verdict.rule not in GAME_RULES:
        word = f": {verdict.word!r}" if verdict.word else ""
        raise Refusal(verdict.key, f"that clue breaks the rule {verdict.rule}{word}", **verdict.params)
    # the house rule: the words as written (their characters passed, the game's rules come after)
    return rules.Clue(tuple(display_word(word) for word in typed_words(intent.text)), intent.lang, checked=False)


def _place(game: GameState, ui: Ui, t: float) -> Step:
    """The pawn goes into the record at once (a power cut keeps what the panel shows) and is
    pending until anyone else acts; the reveal after the last pawn waits until then."""
    pawn = Pawn(rules.current_player(game), ui.cursor)
    action = rules.Place(pawn.cell, pawn.player)
    placed = rules.apply(game, action)
    shown = replace(ui, pending=pawn, refused=None)
    if placed.phase == "clue2":
        shown = replace(screen_for(placed, ui, t), pending=pawn)
    return Step(placed, shown, (action,))


def let_stand(game: GameState, ui: Ui, t: float) -> Step:
    """The pending pawn stays (it is in the record already); after a round's last pawn, the reveal."""
    ui = replace(ui, pending=None)
    return Step(game, screen_for(game, ui, t) if game.phase == "round_over" else ui)


def _seated(game: GameState | None, ui: Ui, player: Player, intent: Intent):
    """The seating after a seat intent."""
    seating, colors = ui.seating, len(ui.colors)
    if isinstance(intent, intents.TakeSeat):
        playing = None if game is None or rules.is_terminal(game) else game.players
        return seating.take(intent.seat, player.holder, colors, playing)
    if isinstance(intent, intents.HandOver):
        if is_computer(seating.holder(intent.seat)):
            raise Refusal("computer_seat", "a computer player holds that seat for this game")
        return seating.hand_over(intent.seat, colors)
    if player.seat is None or seating.holder(player.seat) != player.holder:
        raise Refusal("no_seat", "this phone has no seat to leave")
    return seating.leave(player.seat)


def _new_game(game: GameState | None, ui: Ui, intent: intents.NewGame, t: float, rng: random.Random) -> Step:
    under_way = game is not None and not rules.is_terminal(game)
    if under_way and ui.screen not in ("idle", "setup", "resume"):
        raise Refusal("game_under_way", "a game is under way: finish it first (or abandon it)")
    action = new_game_action(intent, rng, ui.colors, computer_seats(ui, intent))
    new = rules.apply(None, action)  # the engine checks players, variant, first giver and computers
    setup = replace(ui.setup, players=intent.players, variant=intent.variant, first_giver=intent.first_giver,
                    computers=intent.computers, level=intent.level, lang=intent.lang)
    shown = to(ui, "handoff", t, cursor=CENTRE, pending=None, setup=setup)
    seating = seat_computers(new, shown.seating)
    return Step(new, replace(shown, seating=dealt(new, seating)), (action,), abandon=under_way)


def computer_seats(ui: Ui, intent: intents.NewGame) -> tuple[str, ...]:
    """NewGame's `computers` for `intent`: its computer players in the game's last seats that no
    phone holds, so long as one seat stays a person's; () for none."""
    if intent.computers == 0:
        return ()
    if not 0 < intent.computers < intent.players:
        raise Refusal("one_person", "at least one person plays: choose fewer computer players")
    if intent.level not in rules.COMPUTER_LEVELS or intent.lang not in clue_rules.LANGUAGES:
        raise Refusal("bad_message", f"no computer player of level {intent.level[:20]!r} in {intent.lang[:20]!r}")
    free = ui.seating.computer_seats(intent.players, intent.computers)
    if len(free) < intent.computers:
        raise Refusal("no_seat_for_computers", "phones hold those seats: choose fewer computer players")
    entry = rules.computer_entry(intent.level, intent.lang)
    return tuple(entry if seat in free else "" for seat in range(intent.players))


def new_game_action(intent: intents.NewGame, rng: random.Random, colors: tuple[str, ...],
                    computers: tuple[str, ...] = ()) -> rules.NewGame:
    """The new_game for `intent`: a random first giver when none was chosen, and a random seed for
    the deck (the only randomness, kept in the record from then on)."""
    giver = intent.first_giver
    if giver is None:  # the engine refuses a game of no players
        giver = rng.randrange(intent.players) if intent.players > 0 else 0
    return rules.NewGame(players=intent.players, seed=rng.randrange(2**31), first_giver=giver,
                         variant=intent.variant, colors=tuple(colors[: intent.players]), computers=computers)


def _abandon(game: GameState | None, ui: Ui, t: float) -> Step:
    """The game under way (or the one offered for resume) is kept in the history as abandoned and
    set-up opens, for the next game."""
    if game is None or rules.is_terminal(game) or ui.screen in ("idle", "setup"):
        raise Refusal("no_game_to_abandon", "no game is under way to abandon")
    return Step(None, to(ui, "setup", t, setup=replace(ui.setup, item=0), menu_return=None, pending=None),
                abandon=True)


def _only_the_giver(game: GameState, what: str) -> Refusal:
    return Refusal("only_giver", f"only player {game.giver} (the cue giver) {what}", player=game.giver)


# --- the screens a game's state shows ---------------------------------------------------------


def apply_action(game: GameState, ui: Ui, t: float, action: Action) -> Step:
    """Apply one game action (RuleError if the rules refuse it) and show the screen it leads to;
    a new round's secret is bound to the giver seat's occupant as it is dealt."""
    new = rules.apply(game, action)
    shown = screen_for(new, ui, t) if new.phase != game.phase or new.round != game.round else ui
    if new.phase == "choose_target" and new.tiebreak and not game.tiebreak:
        shown = to(ui, "tiebreak", t)
    if isinstance(action, rules.Next) and new.phase == "choose_target":
        shown = replace(shown, seating=dealt(new, shown.seating))
    return Step(new, shown, (action,))


def screen_for(game: GameState, ui: Ui, t: float) -> Ui:
    """The screen that shows `game` as it now stands: used after each action and on resume."""
    phase = game.phase
    if phase == "choose_target":
        return to(ui, "handoff", t)
    if phase == "round_over":
        return to(ui, "reveal", t, reveal_clues=screens.clue_seconds(game.clues))
    if phase == "game_over":
        return to(ui, "game_over", t)
    return to(ui, "play", t, choice=0)


def to(ui: Ui, screen: str, t: float, **changes) -> Ui:
    """`ui` on `screen` from t: its two-way choice, a refusal shown and a hand-off's first A reset."""
    return replace(ui, screen=screen, since=t, choice=changes.pop("choice", 0), refused=None, armed_at=-1.0,
                   clue_screen=0.0, reveal_clues=changes.pop("reveal_clues", 0.0), **changes)


def rebound(game: GameState | None, ui: Ui, t: float) -> tuple[GameState, Ui, tuple] | None:
    """The new deal when the giver's seat has changed hands before the target was chosen
    (seating.redeal), with the panel off the secret screen (also under a menu over it) and the
    pointing dropped: (game, ui, actions to store); None when nothing is to change."""
    moved = redeal(game, ui.seating)
    if moved is None:
        return None
    game, seating, actions = moved
    changes: dict = dict(card_choice=0, cursor=CENTRE, armed_at=-1.0, seating=seating)
    if ui.screen == "secret":
        changes.update(screen="handoff", since=t)
    if ui.menu_return is not None and ui.menu_return[0] == "secret":
        changes["menu_return"] = ("handoff", t)
    return game, replace(ui, **changes), actions
