"""What a phone's request does, beside the joystick: the same game actions through the same engine.

A phone speaks for one seat (a pawn colour), so unlike a button press its requests say who asks;
`handle_remote(game, ui, command, t, rng)` returns a controller `Step` or raises `RuleError` with
the message the phone shows. Where the engine decides (whose turn it is, an occupied cell, a cell
that is not on the card) its own message is passed on: the request is tried on `rules.apply`.

A guess works as with the joystick: a tap moves the guesser's cursor (the panel's, drawn in the
guesser's colour), placing stores the pawn at once and shows it as *pending*, the guesser may take
it back (a `take_back` in the record) or confirm it, and anyone else's next request (or press) lets
it stand first. A refused request changes nothing, not even that.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Callable

from console.game import rules
from console.game.board import Cell, RuleError
from console.game.rules import ChooseTarget, Clue, GameState, Next, Place, SkipClue
from console.play import controller
from console.play.controller import Step, apply_action, new_game_action
from console.view.ui import CENTRE, SetupChoices, Ui

GAME_VERBS = ("cursor", "place", "take_back", "confirm", "choose", "clue", "pass", "next")
HOST_VERBS = ("new_game", "brightness")
VERBS = GAME_VERBS + HOST_VERBS


@dataclass(frozen=True)
class RemoteCommand:
    """A phone's request on the app loop's queue. `seat` is the pawn colour's index in the
    configured colours (the player of that index in a game that has that many); `reply` is
    called in the app's thread with None when it was done, else the refusal."""

    seat: int
    verb: str
    cell: Cell | None = None
    options: tuple[Any, ...] = ()  # new_game: (players, variant, first_giver or None); brightness: (+1 or -1,)
    host: bool = False
    reply: Callable[[str | None], None] = lambda why: None


@dataclass(frozen=True)
class Chore:
    """Work the web layer needs done in the app's thread with the store (reading a stored
    game): `run(store)`."""

    run: Callable[[Any], None]


@dataclass(frozen=True)
class SeatsHeld:
    """The seats phones hold now (the web layer says so whenever they change): the UI keeps them,
    and a cue giver among them picks the target on the phone, never on the panel."""

    seats: tuple[int, ...]


def handle_remote(game: GameState | None, ui: Ui, cmd: RemoteCommand, t: float, rng: random.Random) -> Step:
    if cmd.verb in HOST_VERBS:
        if not cmd.host:
            raise RuleError("only the host can do that (the first seat taken, or whoever gave the host PIN)")
        return _new_game(game, ui, cmd, t, rng) if cmd.verb == "new_game" else _brightness(game, ui, cmd)
    if ui.screen == "resume":
        raise RuleError("the panel asks whether to carry on the stored game: answer there, or the host starts a new one")
    if game is None or rules.is_terminal(game) or ui.screen in ("idle", "setup", "brightness"):
        raise RuleError("no game is under way: the host starts one")
    if cmd.seat >= game.players:
        raise RuleError(f"this game has {game.players} players: your colour is watching")
    if cmd.verb in ("take_back", "confirm"):
        if ui.pending is None or ui.pending.player != cmd.seat:
            raise RuleError("you have no pawn to take back (once the next player acts, it stays)"
                            if cmd.verb == "take_back" else "you have no pawn waiting to be confirmed")
        if cmd.verb == "take_back":  # B on the joystick: the same take_back in the record
            return controller.handle(game, ui, "b", t, rng)
        return let_stand(game, ui, t)
    stood = let_stand(game, ui, t)  # someone else acts: a pending pawn stands from now on
    return _act(stood.game, stood.ui, cmd, t, rng)


def let_stand(game: GameState, ui: Ui, t: float) -> Step:
    """The pending pawn stays (it is in the record already); after a round's last pawn, the reveal."""
    if ui.pending is None:
        return Step(game, ui)
    ui = replace(ui, pending=None)
    return Step(game, controller.screen_for(game, ui, t) if game.phase == "round_over" else ui)


def _act(game: GameState, ui: Ui, cmd: RemoteCommand, t: float, rng: random.Random) -> Step:
    seat, verb = cmd.seat, cmd.verb
    if verb in ("cursor", "place"):
        cell = _cell(cmd)
        rules.apply(game, Place(cell, seat))  # the engine's refusal: not your turn, occupied, not now
        ui = replace(ui, cursor=cell, refused=None)
        return controller.handle(game, ui, "a", t, rng) if verb == "place" else Step(game, ui)
    if verb == "choose":
        if game.phase != "choose_target" or seat != game.giver:
            raise RuleError(_only_the_giver(game, "chooses the target"))
        return apply_action(game, replace(ui, cursor=CENTRE), t, ChooseTarget(_cell(cmd)))
    if verb in ("clue", "pass"):
        if seat != game.giver:
            raise RuleError(_only_the_giver(game, "gives the clues"))
        if verb == "pass" and game.phase != "clue2":
            raise RuleError("pass is only possible instead of the second clue")
        return apply_action(game, ui, t, Clue() if verb == "clue" else SkipClue())
    # next: as A on the reveal (skip ahead, then the next round) or on the tie-break notice
    if ui.screen not in ("reveal", "tiebreak"):
        rules.apply(game, Next())  # the engine's refusal says what the game waits for
        raise RuleError("next is not possible now")
    return controller.handle(game, ui, "a", t, rng)


def _new_game(game: GameState | None, ui: Ui, cmd: RemoteCommand, t: float, rng: random.Random) -> Step:
    if game is not None and not rules.is_terminal(game) and ui.screen not in ("idle", "setup", "resume"):
        raise RuleError("a game is under way: finish it first")
    players, variant, first_giver = cmd.options
    choices = SetupChoices(players=players, variant=variant, first_giver=first_giver)
    action = new_game_action(choices, rng, ui.colors)
    new = rules.apply(None, action)  # the engine checks players, variant and first giver
    ui = replace(ui, screen="handoff", since=t, choice=0, refused=None, cursor=CENTRE, pending=None,
                 setup=choices)
    return Step(new, ui, (action,), abandon=game is not None and not rules.is_terminal(game))


def _brightness(game: GameState | None, ui: Ui, cmd: RemoteCommand) -> Step:
    step = controller.BRIGHTNESS_STEP * cmd.options[0]
    level = min(1.0, max(controller.MIN_BRIGHTNESS, round(ui.brightness + step, 2)))
    return Step(game, replace(ui, brightness=level))


def _cell(cmd: RemoteCommand) -> Cell:
    if cmd.cell is None:
        raise RuleError(f"{cmd.verb} needs a cell")
    return cmd.cell


def _only_the_giver(game: GameState, what: str) -> str:
    return f"only player {game.giver} (the cue giver) {what}"
