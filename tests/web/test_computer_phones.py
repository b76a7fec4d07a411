"""The phones' side of computer players: the host's new game says how many, of what level, writing
clues in what language, and the pace switch is the joystick host menu's; every view says which
seats are computer players (public, like the set-up), which no phone is offered; and each cell's
colour name, for guests who cannot tell the colours apart, comes from the computer players'
knowledge, built only when a phone first asks for it."""

from __future__ import annotations

import asyncio
import json
import math
import random
import threading
import urllib.error
import urllib.request
from dataclasses import replace

import pytest

from console.bots.aim import BOARD_LAB
from console.bots.knowledge import knowledge
from console.game.board import ALL_CELLS, RuleError
from console.game.clue import LANGUAGES
from console.game.seating import Seating, computer_holder
from console.play import intents
from console.play.intents import Player
from console.play.table import act
from console.view.ui import Ui
from console.bots.names import CHILD_MARGIN, cell_colour_names
from console.web import colour_names
from console.web.colour_names import ColourNames
from console.web.thinker import Thinker
from console.web.messages import MessageError, parse_message
from console.web.views import ViewTexts, seat_view
from tests.phones import PhoneTable

HOST, GUEST = "a" * 64, "b" * 64


def message(verb: str, **fields) -> str:
    return json.dumps({"t": verb, "n": 1, **fields})


# --- the messages -----------------------------------------------------------------------------------


def test_a_new_game_names_its_computer_players_or_leaves_them_to_the_defaults():
    sent = parse_message(message("new_game", players=5, variant="free", first_giver=None, computers=2,
                                 level="child", lang="vi"), 0).intent
    assert sent == intents.NewGame(5, "free", None, computers=2, level="child", lang="vi")
    plain = parse_message(message("new_game", players=4, variant="cards"), 0).intent
    assert plain == intents.NewGame(4, "cards", None)
    assert (plain.computers, plain.level, plain.lang) == (0, "expert", "en")
    nulls = parse_message(message("new_game", players=4, variant="cards", computers=None, level=None, lang=None), 0)
    assert nulls.intent == plain


@pytest.mark.parametrize("fields, why", [
    ({"computers": -1}, "new_game: computers must be a whole number from 0 to 99"),
    ({"computers": 100}, "new_game: computers must be a whole number from 0 to 99"),
    ({"computers": "2"}, "new_game: computers must be a whole number from 0 to 99"),
    ({"computers": True}, "new_game: computers must be a whole number from 0 to 99"),
    ({"computers": 1.5}, "new_game: computers must be a whole number from 0 to 99"),
    ({"level": "master"}, "new_game: level must be one of child, expert"),
    ({"level": ["child"]}, "new_game: level must be one of child, expert"),
    ({"lang": "de"}, "new_game: lang must be one of en, it, cs, ro, es, vi"),
    ({"lang": 3}, "new_game: lang must be one of en, it, cs, ro, es, vi"),
])
def test_a_bad_computer_field_is_refused_in_one_line(fields, why):
    with pytest.raises(MessageError) as refused:
        parse_message(message("new_game", players=4, variant="cards", **fields), 0)
    assert str(refused.value) == why


def test_the_pace_switch_is_the_hosts_computer_pace():
    assert parse_message(message("computer_pace", fast=True), 0).intent == intents.ComputerPace(True)
    assert parse_message(message("computer_pace", fast=False), 0).intent == intents.ComputerPace(False)
    for bad in ({"fast": 1}, {"fast": "yes"}, {}, {"fast": True, "slow": True}):
        with pytest.raises(MessageError):
            parse_message(message("computer_pace", **bad), 0)


# --- the views --------------------------------------------------------------------------------------


def started(computers: int = 2, level: str = "child") -> tuple:
    """A 4-player game started by the host's phone in seat 0, a guest's in seat 1: the computer
    players take the last seats."""
    ui = Ui(seating=Seating(holders=((0, HOST), (1, GUEST))))
    step = act(None, ui, Player(HOST, 0), intents.NewGame(4, "cards", 0, computers, level, "it"), 1.0,
               random.Random(2))
    return step.game, step.ui


def test_every_view_says_which_seats_are_computer_players_and_none_is_offered_to_a_phone():
    game, ui = started()
    assert game.computers == ("", "", "child:it", "child:it")
    taken = ui.seating.taken
    open_seats = ui.seating.open_seats(len(ui.colors), game.players)
    assert taken == (0, 1, 2, 3) and not {2, 3} & set(open_seats)
    for seat, digest in ((0, HOST), (1, GUEST), (None, None), (7, None)):
        view = seat_view(game, ui, seat, digest=digest, taken=taken, open_seats=open_seats)
        assert view["game"]["computers"] == [None, None, "child", "child"]
        assert json.loads(ViewTexts(game, ui).text(seat, digest=digest, taken=taken, open_seats=open_seats)) == view
    people = act(None, Ui(), Player(HOST, 0, host=True), intents.NewGame(3, "free", 0), 1.0, random.Random(2)).game
    assert seat_view(people, Ui(), None)["game"]["computers"] == [None, None, None]


def test_the_pace_is_in_every_view_and_a_switch_is_never_lent_from_the_views_before():
    game, ui = started(level="expert")
    before = ViewTexts(game, ui)
    assert json.loads(before.text(1, digest=GUEST))["fast_computers"] is False
    step = act(game, ui, Player(HOST, 0, host=True), intents.ComputerPace(True), 2.0, random.Random(0))
    after = ViewTexts(step.game, step.ui, before=before)
    assert json.loads(after.text(1, digest=GUEST))["fast_computers"] is True
    assert after.text(None) == json.dumps(seat_view(step.game, step.ui, None))


def test_a_phone_cannot_take_a_computer_players_seat():
    game, ui = started()
    third = "c" * 64
    with pytest.raises(RuleError) as refused:
        act(game, ui, Player(third, None), intents.TakeSeat(3), 2.0, random.Random(0))
    assert refused.value.key == "seat_taken"
    assert ui.seating.holder(3) == computer_holder(3)


# --- the colours' names -----------------------------------------------------------------------------


def test_each_cell_is_named_by_the_nearest_colour_or_a_childs_word_about_as_near():
    """The rule of `colour_names`, cell by cell: a child's colour word when one is within
    CHILD_MARGIN of the nearest colour (the nearest such), else the nearest colour."""
    colours = [c for c in knowledge().concepts if c.kind == "colour"]
    names = {lang: cell_colour_names(lang) for lang in LANGUAGES}
    common = 0
    for cell in ALL_CELLS:
        lab = BOARD_LAB[cell.index]
        distance = {c.id: min(math.dist(lab, mode) for mode, _ in c.modes) for c in colours}
        nearest = min(distance.values())
        childs = [c for c in colours if c.child and distance[c.id] <= nearest + CHILD_MARGIN]
        named = min(childs, key=lambda c: distance[c.id]) if childs else min(colours, key=lambda c: distance[c.id])
        common += named.child
        for lang in LANGUAGES:
            assert names[lang][cell.index] == named.word(lang), (cell, lang)
    assert all(len(n) == 480 and all(w.strip() for w in n) for n in names.values())
    assert 0 < common < 480  # the margin bites, and the rarer words still name some cells
    with pytest.raises(ValueError):
        cell_colour_names("de")


def test_the_names_are_built_once_when_first_asked_and_never_on_the_event_loops_thread(monkeypatch):
    built = []

    def build(lang: str) -> bytes:
        built.append((lang, threading.current_thread()))
        return json.dumps([lang] * 480).encode()

    monkeypatch.setattr(colour_names, "colour_names_json", build)
    names = ColourNames(Thinker())
    assert built == []  # nothing at start

    async def phones_ask() -> list[bytes]:
        loop_thread = threading.current_thread()
        answers = await asyncio.gather(names.json("it"), names.json("it"), names.json("vi"))
        assert all(thread is not loop_thread for _, thread in built)
        return answers + [await names.json("it")]

    answers = asyncio.run(phones_ask())
    assert [lang for lang, _ in built] == ["it", "vi"]  # each once, however many asked at once
    assert [json.loads(a)[0] for a in answers] == ["it", "it", "vi", "it"]


def test_the_console_builds_the_names_on_the_computer_players_thread(monkeypatch):
    """The knowledge is theirs to read: a phone's names and a computer player's first move never
    read it twice at once."""
    built = []
    real = colour_names.colour_names_json
    monkeypatch.setattr(colour_names, "colour_names_json",
                        lambda lang: built.append(threading.current_thread().name) or real(lang))
    with PhoneTable() as table:
        with urllib.request.urlopen(table.url + "/colour-names/ro.json", timeout=30) as response:
            assert json.loads(response.read()) == list(cell_colour_names("ro"))
    assert len(built) == 1 and built[0].startswith("computer-player")


def test_the_page_says_the_box_is_stopping_once_the_computer_players_thread_has_shut_down():
    with PhoneTable() as table:
        table.app.computers.close()  # as the console's close does, before the server's
        with pytest.raises(urllib.error.HTTPError) as stopping:
            urllib.request.urlopen(table.url + "/colour-names/es.json", timeout=5)
        assert stopping.value.code == 503 and stopping.value.read() == b"the box is stopping"


def test_the_page_serves_each_languages_names_and_nothing_else():
    with PhoneTable() as table:
        with urllib.request.urlopen(table.url + "/colour-names/cs.json", timeout=30) as response:
            assert response.headers["content-type"].startswith("application/json")
            assert json.loads(response.read()) == list(cell_colour_names("cs"))
        for path in ("/colour-names/de.json", "/colour-names/cs", "/colour-names/../i18n/cs.json"):
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(table.url + path, timeout=5)
            assert missing.value.code == 404, path


def test_a_host_asking_for_more_computer_players_than_free_seats_is_told_why():
    ui = Ui(seating=Seating(holders=((0, HOST), (1, GUEST), (2, "c" * 64))))
    with pytest.raises(intents.Refusal) as refused:
        act(None, ui, Player(HOST, 0), intents.NewGame(4, "cards", 0, computers=2), 1.0, random.Random(2))
    assert refused.value.key == "no_seat_for_computers"
    with pytest.raises(intents.Refusal) as refused:
        act(None, replace(ui, seating=Seating()), Player(HOST, 0, host=True),
            intents.NewGame(4, "cards", 0, computers=4), 1.0, random.Random(2))
    assert refused.value.key == "one_person"
