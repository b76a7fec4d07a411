"""What a phone's request does, beside the joystick: the same game actions through the same engine.

A phone speaks for one seat (a pawn colour), so unlike a button press its requests say who asks;
`handle_remote(game, ui, command, t, rng)` returns a controller `Step` or raises `RuleError` with
the message the phone shows. Where the engine decides (whose turn it is, an occupied cell, a cell
that is not on the card) its own message is passed on: the request is tried on `rules.apply`.

A guess works as with the joystick: a tap moves the guesser's cursor (the panel's, drawn in the
guesser's colour), placing stores the pawn at once and shows it as *pending*, the guesser may take
it back (a `take_back` in the record) or confirm it, and anyone else's next request (or press) lets
it stand first. A refused request changes nothing, not even that.

A refusal is a `RuleError` with the English text (the log's, and the fallback) and a key with its
parameters, which the phone looks up in its own language's catalogue: a `Refusal` where this
module decides, the engine's own where it does (nothing is checked twice). Players are named by
their number in the parameters; the phone names them by their colour, as everything else on it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Callable, NamedTuple

from console.game import rules
from console.game.board import Cell, RuleError
from console.game.rules import ChooseTarget, Clue, GameState, Next, SkipClue
from console.play import controller
from console.play.controller import Step, apply_action, new_game_action
from console.play.secret import dealt
from console.view.ui import CENTRE, MENU_SCREENS, SetupChoices, Ui

GAME_VERBS = ("cursor", "place", "take_back", "confirm", "choose", "clue", "pass", "next")
HOST_VERBS = ("new_game", "brightness", "abandon")
VERBS = GAME_VERBS + HOST_VERBS


class RemoteCommand(NamedTuple):
    """A phone's request, done by `ConsoleApp.take_request` (or from the app loop's queue).
    `seat` is the pawn colour's index in the configured colours (the player of that index in a
    game that has that many); `reply` is called under the loop's lock with None when it was
    done, else the refusal. (A tuple: one is made at every tap, where a frozen dataclass sets
    each of its seven fields through object.__setattr__.)"""

    seat: int
    verb: str
    cell: Cell | None = None
    options: tuple[Any, ...] = ()  # new_game: (players, variant, first_giver or None); brightness: (+1 or -1,)
    host: bool = False
    reply: Callable[[RuleError | None], None] = lambda why: None
    digest: str | None = None  # the phone's seat token, as its digest: is it the round's secret holder?


@dataclass(frozen=True)
class Chore:
    """Work to be done with the loop's state, under its lock (in the loop's thread, or in the web
    server's before a phone's request): `run(store)`."""

    run: Callable[[Any], None]


@dataclass(frozen=True)
class SeatsHeld:
    """The seats phones hold now, each with its token's digest (the web layer says so whenever
    they change): the UI keeps them; a round is dealt to the giver seat's token (`secret`), and
    the joystick does not act for these seats."""

    phones: tuple[tuple[int, str], ...]


class Refusal(RuleError):
    """A request refused before the engine is asked: str() is the English text; `key` and
    `params` what the phone shows (the engine's own refusals carry theirs too)."""

    def __init__(self, key: str, text: str, **params: Any) -> None:
        super().__init__(text, key, **params)


def handle_remote(game: GameState | None, ui: Ui, cmd: RemoteCommand, t: float, rng: random.Random) -> Step:
    return _under_the_menu(ui, _handle(game, ui, cmd, t, rng))


def _under_the_menu(ui: Ui, step: Step) -> Step:
    """A request done while the panel shows a menu over the game (the host menu, brightness, the
    quit question) changes the game under it: the menu stays, and closing it shows the game as it
    now stands (it returned to the screen it was opened over, which may no longer fit the game).
    A request that ends the game (the host abandons it) closes the menu with it."""
    if (ui.menu_return is None or ui.screen not in MENU_SCREENS or step.ui.screen in MENU_SCREENS
            or step.game is None):
        return step
    kept = replace(step.ui, screen=ui.screen, since=ui.since, choice=ui.choice, menu_item=ui.menu_item,
                   menu_return=(step.ui.screen, step.ui.since))
    return step._replace(ui=kept)


def _handle(game: GameState | None, ui: Ui, cmd: RemoteCommand, t: float, rng: random.Random) -> Step:
    if cmd.verb in HOST_VERBS:
        if not cmd.host:
            raise Refusal("host_only", "only the host can do that (the first seat taken, or whoever gave the host PIN)")
        if cmd.verb == "abandon":
            return _abandon(game, ui, t)
        return _new_game(game, ui, cmd, t, rng) if cmd.verb == "new_game" else _brightness(game, ui, cmd)
    if ui.screen == "resume":
        raise Refusal("resume_on_panel", "the panel asks whether to carry on the stored game: answer there, "
                      "or the host starts a new one")
    if game is None or rules.is_terminal(game) or ui.screen in ("idle", "setup", "brightness"):
        raise Refusal("no_game", "no game is under way: the host starts one")
    if cmd.seat >= game.players:
        raise Refusal("watching", f"this game has {game.players} players: your colour is watching", players=game.players)
    if cmd.verb in ("take_back", "confirm"):
        if ui.pending is None or ui.pending.player != cmd.seat:
            if cmd.verb == "take_back":
                raise Refusal("nothing_to_take_back", "you have no pawn to take back (once the next player acts, it stays)")
            raise Refusal("nothing_to_confirm", "you have no pawn waiting to be confirmed")
        if cmd.verb == "take_back":  # B on the joystick: the same take_back in the record
            return controller.press(game, ui, "b", t, rng)
        return _let_stand(game, ui, t)
    if ui.pending is None:
        return _act(game, ui, cmd, t, rng)
    stood = _let_stand(game, ui, t)  # someone else acts: the pending pawn stands from now on
    if cmd.verb == "next" and stood.ui.screen == "reveal" and ui.screen != "reveal":
        return stood  # the round's last pawn: as the joystick's A, the request that reveals is used up
    return _act(stood.game, stood.ui, cmd, t, rng)


def _let_stand(game: GameState, ui: Ui, t: float) -> Step:
    """The pending pawn stays (it is in the record already); after a round's last pawn, the reveal."""
    ui = replace(ui, pending=None)
    return Step(game, controller.screen_for(game, ui, t) if game.phase == "round_over" else ui)


def _act(game: GameState, ui: Ui, cmd: RemoteCommand, t: float, rng: random.Random) -> Step:
    seat, verb = cmd.seat, cmd.verb
    if verb in ("cursor", "place"):
        cell = _cell(cmd)
        if game.phase not in ("guess1", "guess2"):
            raise Refusal("not_guessing", f"nobody guesses now (the game is at {game.phase})")
        rules.check_place(game, cell, seat)  # its turn and its cell, the engine's refusals
        ui = ui.with_cursor(cell)
        return controller.press(game, ui, "a", t, rng) if verb == "place" else Step(game, ui)
    if verb == "choose":
        if seat != game.giver:
            raise _only_the_giver(game, "chooses the target")
        if game.phase != "choose_target":
            raise Refusal("target_chosen", "the target is chosen already")
        if cmd.digest is None or cmd.digest != ui.secret_holder:
            raise Refusal("not_dealt_to_you", "this round's card went to whoever held this colour when it was "
                          "dealt: it is theirs to choose (this colour gets a card of its own next round)")
        return apply_action(game, replace(ui, cursor=CENTRE), t, ChooseTarget(_cell(cmd)))
    if verb in ("clue", "pass"):
        if seat != game.giver:
            raise _only_the_giver(game, "gives the clues")
        if verb == "pass" and game.phase != "clue2":
            raise Refusal("pass_second_only", "pass is only possible instead of the second clue")
        if game.phase not in ("clue1", "clue2", "guess1", "guess2"):
            raise Refusal("not_now", f"not possible now (the game is at {game.phase})")
        return apply_action(game, ui, t, Clue() if verb == "clue" else SkipClue())
    # next: from the reveal, whatever it shows, straight to the next round (the phones showed the
    # points); on the tie-break notice, as A
    if ui.screen == "reveal":
        return apply_action(game, replace(ui, cursor=CENTRE), t, Next())
    if ui.screen == "tiebreak":
        return controller.press(game, ui, "a", t, rng)
    raise Refusal("not_now", f"next is not possible now (the game is at {game.phase})")


def _abandon(game: GameState | None, ui: Ui, t: float) -> Step:
    """The host menu's NEW, asked for on the host's phone (which asked "are you sure?" first): the
    game is kept in the history as abandoned and set-up opens, for the phone's or the joystick's
    next game."""
    if game is None or rules.is_terminal(game) or ui.screen in ("idle", "setup", "resume"):
        raise Refusal("no_game_to_abandon", "no game is under way to abandon")
    ui = replace(ui, screen="setup", since=t, choice=0, refused=None, armed_at=-1.0, pending=None,
                 menu_return=None, setup=replace(ui.setup, item=0))
    return Step(None, ui, abandon=True)


def _new_game(game: GameState | None, ui: Ui, cmd: RemoteCommand, t: float, rng: random.Random) -> Step:
    if game is not None and not rules.is_terminal(game) and ui.screen not in ("idle", "setup", "resume"):
        raise Refusal("game_under_way", "a game is under way: finish it first (or abandon it)")
    players, variant, first_giver = cmd.options
    choices = SetupChoices(players=players, variant=variant, first_giver=first_giver)
    action = new_game_action(choices, rng, ui.colors)
    new = rules.apply(None, action)  # the engine checks players, variant and first giver
    ui = replace(ui, screen="handoff", since=t, choice=0, refused=None, cursor=CENTRE, pending=None,
                 setup=choices)
    return Step(new, dealt(new, ui), (action,), abandon=game is not None and not rules.is_terminal(game))


def _brightness(game: GameState | None, ui: Ui, cmd: RemoteCommand) -> Step:
    step = controller.BRIGHTNESS_STEP * cmd.options[0]
    level = min(1.0, max(controller.MIN_BRIGHTNESS, round(ui.brightness + step, 2)))
    return Step(game, replace(ui, brightness=level))


def _cell(cmd: RemoteCommand) -> Cell:
    if cmd.cell is None:
        raise Refusal("rule", f"{cmd.verb} needs a cell")
    return cmd.cell


def _only_the_giver(game: GameState, what: str) -> Refusal:
    return Refusal("only_giver", f"only player {game.giver} (the cue giver) {what}", player=game.giver)
