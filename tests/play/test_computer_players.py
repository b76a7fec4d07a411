"""Computer players at the table: whole games of one scripted person and two computer players, at
each level and in each language, through the real app loop on a virtual clock, with typed clues.

The person acts through the same door as everyone (intents on the app's queue); the computer
players' moves are worked out by `bots.player` and done by the app as requests at a person's pace.
The record the store keeps replays to the game the console reached.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys

import pytest

from console.bots.knowledge import knowledge
from console.commands.wiring import build_output
from console.config.loader import load_config
from console.game import rules
from console.game.clue import LANGUAGES, check_clue
from console.game.record import action_from_json, action_to_json
from console.game.board import RuleError
from console.game.seating import PANEL, Seating, computer_holder, dealt, is_computer, seat_computers
from console.play import intents, table
from console.play.intents import Player
from console.play.app import ConsoleApp
from console.play.computers import FAST_PACE_S, PACE_S, Computers
from console.play.keeper import SECRET_SETTING
from console.play.ports import Request
from console.store.games import GameStore
from console.view.hints import describe
from console.view.ui import Ui
from hal.inputs.events import PRESS, EventQueue, InputEvent
from tests.fakes import InlineThinker

STEP_S = 0.05
PHONE = "p" * 64  # a phone's holder: its seat token's digest
# The person's clues: a word each language has for these (kept to the clue check, as a phone would send).
PERSON_CLUES = ("banana", "sky")


def make_app(tmp_path, store=None):
    config = load_config(None, environ={}, etc_path=str(tmp_path / "none.yaml"))
    stage, driver = build_output(config, "sim-headless")
    events = EventQueue()
    store = store or GameStore("memory://")
    app = ConsoleApp(stage, driver, events, [], store, colors=config.players.colors, rng=random.Random(3),
                     computers=Computers(events, InlineThinker()))
    return app, store


def person_clue(lang: str, which: int) -> str:
    word = knowledge().by_id[PERSON_CLUES[which]].word(lang)
    assert check_clue(word, lang, second=which == 1).ok
    return word


def person_move(game: rules.GameState, app: ConsoleApp, lang: str):
    """The scripted person's intent now (seat 0, at the joystick), or None when it is not theirs."""
    ui = app.ui
    if game.phase == "round_over" and ui.screen == "reveal" and ui.pending is None:
        return intents.Next()
    if rules.current_player(game) != 0 or ui.seating.holder(0) != PANEL:
        return None
    if game.phase == "choose_target":
        return intents.ChooseTarget(game.card_cells[0])
    if game.phase in ("clue1", "clue2"):
        return intents.GiveClue(person_clue(lang, 0 if game.phase == "clue1" else 1), lang)
    free = next(cell for cell in reversed(rules.ALL_CELLS) if not game.occupied(cell))
    return intents.Place(free)


def play(app: ConsoleApp, lang: str, level: str, players: int = 3, computers: int = 2, limit_s: float = 3600.0):
    """A whole game from set-up to its end: the person's moves and the time the computers take."""
    now = 0.0
    app.start(now)
    app.events.put(Request(intents.joystick(), intents.NewGame(players, "cards", 0, computers, level, lang)))
    refusals = []
    asked_for = None
    while now < limit_s:
        due = app.tick(now)
        game = app.game
        if game is not None and rules.is_terminal(game):
            return now, refusals
        wanted = None if game is None else person_move(game, app, lang)
        if wanted is not None and (game, type(wanted)) != asked_for:
            asked_for = (game, type(wanted))
            app.events.put(Request(intents.joystick(0), wanted, lambda why: why and refusals.append(why)))
            if isinstance(wanted, intents.Place):
                app.events.put(Request(intents.joystick(0), intents.Confirm()))
            now += STEP_S
            continue
        now = min(max(now + STEP_S, due), now + 1.0)
    raise AssertionError(f"the game did not end within {limit_s} s of virtual time")


def with_two_computers(tmp_path, first_giver: int = 0) -> ConsoleApp:
    """A started console, a game of three under way: the person in seat 0, two expert computer
    players writing English."""
    app, _ = make_app(tmp_path)
    app.start(0.0)
    app.events.put(Request(intents.joystick(), intents.NewGame(3, "cards", first_giver, 2, "expert", "en")))
    app.tick(0.0)
    return app


def person(app: ConsoleApp, intent, t: float) -> None:
    """The person at the joystick (seat 0) does `intent` at `t`."""
    app.events.put(Request(intents.joystick(0), intent))
    app.tick(t)


@pytest.mark.parametrize("level", rules.COMPUTER_LEVELS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_one_person_and_two_computer_players_play_a_whole_game(tmp_path, lang, level):
    app, store = make_app(tmp_path)
    ended_at, refusals = play(app, lang, level)
    game = app.game
    assert refusals == []
    assert game.computers == ("", f"{level}:{lang}", f"{level}:{lang}")
    record = [action_from_json(obj) for obj in store.export(store.history(1)[0]["game_id"])]
    assert rules.replay(record) == game  # the computer players' moves are actions like any other
    clues = [a for a in record if isinstance(a, rules.Clue)]
    assert clues and all(clue.written for clue in clues)
    computer_clues = [clue for clue in clues if clue.lang == lang and clue.words not in
                      ((person_clue(lang, 0),), (person_clue(lang, 1),))]
    assert computer_clues, "the computer givers gave written clues"
    for clue in computer_clues:  # each keeps every rule of the clue check (one word first)
        assert check_clue(" ".join(clue.words), lang, second=False).ok or check_clue(
            " ".join(clue.words), lang, second=True).ok
    assert app.ui.seating.holders == ()  # the computer players left with the game's end


def test_a_computer_player_acts_at_a_persons_pace_and_quicker_when_the_host_asks(tmp_path):
    app = with_two_computers(tmp_path, first_giver=1)
    assert app.game.phase == "choose_target" and is_computer(app.ui.seating.secret)
    assert app.ui.seating.holder(1) == computer_holder(1)
    app.tick(0.01)  # its move, worked out, waits for its time
    assert app.computers.due(app.ui) == pytest.approx(PACE_S)
    assert app.tick(0.02) <= PACE_S  # the loop wakes for it
    app.tick(PACE_S - 0.02)
    assert app.game.phase == "choose_target"
    app.tick(PACE_S)
    assert app.game.phase == "clue1"  # the target chosen at the computer's pace
    app.events.put(Request(intents.joystick(), intents.ComputerPace(True)))
    app.tick(PACE_S + 0.01)
    app.tick(PACE_S + 0.02)
    assert app.ui.fast_computers
    assert app.computers.due(app.ui) == pytest.approx(PACE_S + FAST_PACE_S)


def test_a_computer_guesser_points_at_its_cell_half_way_then_places_its_pawn_which_stands(tmp_path):
    app = with_two_computers(tmp_path)
    person(app, intents.ChooseTarget(app.game.card_cells[0]), 0.1)
    person(app, intents.GiveClue("banana", "en"), 0.2)
    assert app.game.phase == "guess1" and rules.current_player(app.game) == 1
    start = app.ui.clue_ends()  # the clue's words fill the panel until then: its turn begins after them
    cursor = app.ui.cursor
    app.tick(start + PACE_S / 2 - 0.01)
    assert app.game.pawns == () and app.ui.cursor == cursor
    app.tick(start + PACE_S / 2)
    assert app.game.pawns == () and app.ui.cursor != cursor  # it points at its cell first
    pointed = app.ui.cursor
    app.tick(start + PACE_S)
    assert [pawn.cell for pawn in app.game.pawns] == [pointed]
    assert app.game.pawns[0].player == 1 and app.ui.pending is None  # it stands: the next player may act


def test_a_game_with_computer_players_resumed_after_a_restart_goes_on_with_them(tmp_path):
    """The record names the computer players: a console started on it seats them again, the
    round's secret bound to the computer giver it was dealt to, and they play on."""
    store = GameStore("memory://")
    computers = ("", "child:es", "child:es")
    store.start_game(action_to_json(rules.NewGame(3, seed=4, first_giver=1, computers=computers)))
    store.set_setting(SECRET_SETTING, [[[4, 1, 0, 1], computer_holder(1)]])
    app, _ = make_app(tmp_path, store)
    app.start(0.0)
    app.tick(0.0)
    assert app.ui.screen == "resume" and app.game.computers == computers
    assert app.ui.seating.holder(1) == computer_holder(1) and app.ui.seating.secret == computer_holder(1)
    app.tick(10.0)
    assert app.game.phase == "choose_target"  # the resume question is the person's to answer first
    app.events.put(InputEvent("a", PRESS, 10.0))  # resume
    app.tick(10.0)
    assert app.ui.screen == "handoff"
    app.tick(10.1)
    app.tick(10.0 + PACE_S)
    assert app.game.phase == "clue1"  # the computer giver chose its target, and goes on


@pytest.mark.parametrize("kept", [None, "not a list", [[[0, 0, 0, 0], PANEL]], [[[4, 1, 0, 1], PANEL]]])
def test_a_computer_giver_whose_binding_the_store_lost_gives_its_clue_after_a_restart(tmp_path, kept):
    """The round's binding is gone (never kept, damaged, another deal's, another holder's) after
    the computer giver chose its target: its seat was its computer player's all game, so the deal
    was bound to it."""
    store = GameStore("memory://")
    new_game = rules.NewGame(3, seed=4, first_giver=1, computers=("", "expert:en", "expert:en"))
    store.start_game(action_to_json(new_game))
    game = rules.apply(None, new_game)
    store.append(action_to_json(rules.ChooseTarget(game.card_cells[2])))
    if kept is not None:
        store.set_setting(SECRET_SETTING, kept)
    app, _ = make_app(tmp_path, store)
    app.start(0.0)
    app.tick(0.0)
    assert app.ui.screen == "resume" and app.ui.seating.secret == computer_holder(1)
    app.events.put(InputEvent("a", PRESS, 1.0))  # resume
    app.tick(1.0)
    app.tick(1.0 + PACE_S)
    assert app.game.phase == "guess1" and app.game.clues[0].written


def test_a_console_without_computer_players_never_loads_them():
    """Start-up to the first frame stays where it was: the computer players' modules (the board in
    OKLab, the knowledge) load on their own thread when a game first has them."""
    loaded = subprocess.run([sys.executable, "-c", "import sys, console.commands.main, console.play.app, "
                             "console.web.companion; print(sorted(m for m in sys.modules if m.startswith('console.bots')))"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_the_panels_words_say_what_a_computer_player_does_and_what_a_spoken_clue_means_to_it(tmp_path):
    app = with_two_computers(tmp_path)
    person(app, intents.ChooseTarget(app.game.card_cells[0]), 0.1)
    assert "computer players read only a clue typed on a phone" in describe(app.game, app.ui)
    person(app, intents.GiveClue("banana", "en"), 0.2)
    assert describe(app.game, app.ui).startswith("Orange (computer) places its first pawn")


def test_the_host_cannot_hand_a_computer_players_seat_to_a_phone(tmp_path):
    app = with_two_computers(tmp_path)
    refused = []
    app.events.put(Request(intents.joystick(), intents.HandOver(2), refused.append))
    app.tick(0.1)
    assert [why.key for why in refused] == ["computer_seat"] and app.ui.seating.holder(2) == computer_holder(2)


def _phone_giving(tied: tuple[int, ...] = ()):
    """A round of four whose giver (seat 0) is a phone and whose seats 2 and 3 are computer
    players, the target chosen; `tied`: a tie-break round of those players."""
    game = rules.apply(None, rules.NewGame(4, seed=3, first_giver=0, variant="free",
                                           computers=("", "", "expert:en", "expert:en")))
    game = dataclasses.replace(game, tied=tied)
    game = rules.apply(game, rules.ChooseTarget(rules.ALL_CELLS[40]))
    seating = seat_computers(game, Seating(holders=((0, PHONE),)))
    ui = table.screen_for(game, Ui(seating=dealt(game, seating)), 0.0)
    return game, ui


def test_a_phone_giver_is_asked_to_type_the_clue_when_computer_players_guess():
    game, ui = _phone_giving()
    with pytest.raises(RuleError) as refused:
        table.act(game, ui, Player(PHONE, 0), intents.GiveClue(), 1.0, random.Random(1))
    assert refused.value.key == "clue_typed_for_computers"
    typed = table.act(game, ui, Player(PHONE, 0), intents.GiveClue("banana", "en"), 1.0, random.Random(1))
    assert typed.game.clues[0].words == ("banana",)


def test_a_spoken_clue_stands_in_a_tie_break_where_only_people_guess():
    game, ui = _phone_giving(tied=(1,))
    spoken = table.act(game, ui, Player(PHONE, 0), intents.GiveClue(), 1.0, random.Random(1))
    assert spoken.game.phase == "guess1" and not spoken.game.clues[0].written
    game, ui = _phone_giving(tied=(1, 2))
    with pytest.raises(RuleError):
        table.act(game, ui, Player(PHONE, 0), intents.GiveClue(), 1.0, random.Random(1))
