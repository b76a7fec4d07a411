"""One door for every player: the joystick and a phone make the same intent for the same move, and
the one handler (`table.act`) does it the same whoever made it; no phone's request goes through a
button.

For every verb a phone sends that the joystick also has, the joystick's press on the screen that
offers the move and the phone's message give equal intents, and done for the seat's holder they
give the same game, the same actions to store and the same screen. The verbs only a phone sends
are named with why the joystick has none, so a new verb must be placed in one list or the other.
"""

from __future__ import annotations

import ast
import random
from dataclasses import replace
from pathlib import Path

import pytest

from console.game import rules
from console.game.board import Cell
from console.game.rules import NewGame, Pawn
from console.game.seating import PANEL, Seating, dealt
from console.play import controller, intents
from console.play.intents import Player
from console.play.table import act, screen_for
from console.view.ui import HOST_ITEMS, HOST_MENU, REVEAL_SCORES_S, SETUP_ITEMS, SetupChoices, Ui
from console.web.messages import CONNECTION_VERBS, FIELDS, Message
from tests.gameplay import c, play_round

ROOT = Path(__file__).resolve().parents[2]
T = 100.0
PHONE = "d" * 64
# A phone's verbs the joystick does not make, and why: a cursor tap is a pointing the engine
# checks (the joystick's arrows step over pawns instead); the joystick lets a pawn stand with any
# other press; the joystick holds every seat nobody else does.
PHONE_ONLY = {"cursor", "confirm", "take", "leave", "free_seat"}


def new(players: int = 4, variant: str = "cards", giver: int = 0) -> rules.GameState:
    return rules.apply(None, NewGame(players=players, seed=5, first_giver=giver, variant=variant))


def guessing() -> rules.GameState:
    game = new()
    return rules.apply(rules.apply(game, rules.ChooseTarget(game.card_cells[1])), rules.Clue())


def on(game: rules.GameState | None, **ui) -> tuple[rules.GameState | None, Ui]:
    shown = screen_for(game, Ui(), T) if game is not None else Ui()
    seating = dealt(game, Seating()) if game is not None else Seating()
    return game, replace(shown, seating=seating, **ui)


def moves():
    """(verb, the phone's fields, game, ui, the joystick's button): each the same move."""
    game = guessing()
    yield "place", {"cell": c("H15")}, *on(game, cursor=c("H15")), "a"
    placed = rules.apply(game, rules.Place(c("H15"), 1))
    yield "take_back", {}, *on(placed, pending=Pawn(1, c("H15"))), "b"
    fresh = new()
    yield "choose", {"cell": fresh.card_cells[2]}, *on(fresh, screen="secret", card_choice=2), "a"
    free = new(variant="free")
    yield "choose", {"cell": c("C7")}, *on(free, screen="secret", cursor=c("C7")), "a"
    chosen = rules.apply(fresh, rules.ChooseTarget(fresh.card_cells[0]))
    yield "clue", {}, *on(chosen), "a"
    second = rules.apply(chosen, rules.Clue())
    for seat in (1, 2, 3):
        second = rules.apply(second, rules.Place(Cell(seat, seat), seat))
    yield "clue", {}, *on(second, choice=0), "a"
    yield "pass", {}, *on(second, choice=1), "a"
    scored = play_round(new(), second=None)
    yield "next", {}, *on(scored, since=T - REVEAL_SCORES_S), "a"
    tied = rules.apply(play_round(new(players=3), second=None), rules.Next())
    yield "next", {}, *on(tied, screen="tiebreak"), "a"
    setup = SetupChoices(players=5, variant="free", first_giver=2, item=SETUP_ITEMS.index("start"))
    yield "new_game", {"players": 5, "variant": "free", "first_giver": 2}, *on(None, screen="setup", setup=setup), "a"
    random_giver = replace(setup, first_giver=None)
    yield "new_game", {"players": 5, "variant": "free", "first_giver": None}, *on(None, screen="setup",
                                                                               setup=random_giver), "a"
    computers = replace(setup, computers=2, level="child", lang="it")
    yield "new_game", {"players": 5, "variant": "free", "first_giver": 2, "computers": 2, "level": "child",
                       "lang": "it"}, *on(None, screen="setup", setup=computers), "a"
    yield "brightness", {"delta": 1}, *on(None, screen="brightness", brightness=0.5), "up"
    yield "brightness", {"delta": -1}, *on(None, screen="brightness", brightness=0.5), "down"
    under_way = guessing()
    yield "clue_check", {"on": False}, *on(under_way, screen="host", menu_item=HOST_MENU.index("clue_check"),
                                           menu_return=("play", T)), "a"
    yield "clue_check", {"on": True}, *on(under_way, screen="host", menu_item=HOST_MENU.index("clue_check"),
                                          menu_return=("play", T), clue_check=False), "a"
    for fast in (True, False):  # the host menu's pace: the phone's switch
        yield "computer_pace", {"fast": fast}, *on(under_way, screen="host", menu_item=HOST_MENU.index("pace"),
                                                   menu_return=("play", T), fast_computers=not fast), "a"
    yield "abandon", {}, *on(under_way, screen="confirm", choice=1, menu_item=HOST_ITEMS.index("new_game"),
                             menu_return=("play", T)), "a"
    yield "abandon", {}, *on(under_way, screen="resume", choice=1), "a"


MOVES = list(moves())


def test_every_verb_is_a_move_the_joystick_makes_or_one_only_a_phone_makes():
    assert {verb for verb, *_ in MOVES} | PHONE_ONLY == set(FIELDS) - set(CONNECTION_VERBS)
    assert not {verb for verb, *_ in MOVES} & PHONE_ONLY


@pytest.mark.parametrize("verb, fields, game, ui, button", MOVES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MOVES)])
def test_the_joystick_and_a_phone_make_the_same_intent_and_it_does_the_same(verb, fields, game, ui, button):
    seat, pressed = controller.intent_of(game, ui, button, T)
    sent = Message(verb, 1, fields).intent
    assert pressed == sent
    by_joystick = act(game, ui, intents.joystick(seat), pressed, T, random.Random(3))
    assert controller.handle(game, ui, button, T, random.Random(3)) == by_joystick
    mine = seat if seat is not None or game is None else 1  # a move for no seat: any player of the game
    if mine is not None:  # the phone holds that seat (and the round's secret, when the move needs it)
        secret = PHONE if ui.seating.secret == PANEL else ui.seating.secret
        ui = replace(ui, seating=Seating(holders=((mine, PHONE),), secret=secret))
    by_phone = act(game, ui, Player(PHONE, mine, host=True), sent, T, random.Random(3))
    assert (by_phone.game, by_phone.actions, by_phone.abandon) == (by_joystick.game, by_joystick.actions,
                                                                   by_joystick.abandon)
    assert replace(by_phone.ui, seating=None) == replace(by_joystick.ui, seating=None)


def test_the_joystick_does_nothing_for_a_seat_a_phone_holds():
    game, ui = on(guessing(), cursor=c("H15"))
    phone_guesser = replace(ui, seating=Seating(holders=((1, PHONE),), secret=ui.seating.secret))
    for button in ("a", "up", "b"):
        assert controller.handle(game, phone_guesser, button, T, random.Random(0)) == (game, phone_guesser, (), False,
                                                                                       False)


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_phones_request_goes_through_the_joysticks_buttons():
    """The handler and the web layer never ask the controller: a phone's place, take-back and Next
    reach the rules through `table.act` alone."""
    for path in [ROOT / "console" / "play" / "table.py", *sorted((ROOT / "console" / "web").glob("*.py"))]:
        assert not any(name.startswith("console.play.controller") for name in imports(path)), path


def test_the_host_by_seat_is_the_seatings_to_say_not_the_phones():
    """A phone's connection knows its seats from the state last published, which may lag behind
    the app's (its "seated" comes first): whether it is the host is decided where the seats are
    never out of date, so the first phone seated starts a game the moment it is seated."""
    first, second = PHONE, "e" * 64
    ui = Ui(seating=Seating(holders=((2, first), (0, second))))
    start = intents.NewGame(players=3, variant="free", first_giver=0)
    step = act(None, ui, Player(first, 2), start, T, random.Random(3))
    assert isinstance(step.actions[0], NewGame)
    with pytest.raises(intents.Refusal) as refused:
        act(None, ui, Player(second, 0), start, T, random.Random(3))
    assert refused.value.key == "host_only"
    assert act(None, ui, Player(second, 0, host=True), start, T, random.Random(3)).actions  # the host PIN
