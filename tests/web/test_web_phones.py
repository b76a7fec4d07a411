"""Phones at the table, through the real server and app loop: joining with the room code, seats
and tokens, a round played from phones with the engine's refusals, take-back, and the seats
surviving a reload and a console restart."""

from __future__ import annotations

import threading

import pytest

from console.game import clue
from console.game.board import parse_cell
from console.game.rules import Clue
from tests.phones import PhoneTable

CODES = iter(["ACEF", "HKPR", "TXYA", "CEFH", "KPRT"] * 10)


@pytest.fixture
def table():
    with PhoneTable(codes=lambda: next(CODES)) as t:
        yield t


def seated_three(table: PhoneTable):
    phones = [table.phone().join(table.code, seat) for seat in range(3)]
    phones[0].send("new_game", players=3, variant="cards", first_giver=0)
    for phone in phones:
        phone.view(lambda v: v["game"] is not None)
    return phones


def test_a_phone_joins_with_the_code_and_the_first_seat_is_the_host(table):
    first = table.phone()
    first.send("join", code="XXXX")
    assert first.refusal() == "that is not the code on the panel"
    first.send("take", seat=0)
    assert first.refusal() == "type the room code the panel shows first"
    first.join(table.code.lower(), 2)  # typed in lower case: fine
    assert len(first.token) == 32 and int(first.token, 16) >= 0
    view = first.view(lambda v: v["seat"] == 2)
    assert view["host"] is True and view["taken"] == [2]
    second = table.phone()
    second.send("join", code=table.code)
    second.expect("admitted")
    second.send("take", seat=2)
    assert second.refusal() == "that colour is taken: choose another"
    second.send("take", seat=0)
    second.expect("seated")
    assert second.view(lambda v: v["seat"] == 0)["host"] is False
    second.send("new_game", players=3, variant="cards", first_giver=None)
    assert second.refusal().startswith("only the host can do that")


def test_the_room_code_is_new_each_game(table):
    host = table.phone().join(table.code, 0)
    before = table.code
    host.send("new_game", players=3, variant="free", first_giver=1)
    table.wait_until(lambda: table.code != before)
    assert table.app.ui.room_code == table.code


def test_a_round_from_phones_with_the_engines_refusals(table):
    giver, left, right = seated_three(table)
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    assert len(card) == 4
    for other in (left, right):
        assert other.view()["you"]["card"] is None
    right.send("choose", cell=card[0])
    assert right.refusal() == "only player 0 (the cue giver) chooses the target"
    off_card = next(name for name in ("A1", "P30", "H15") if name not in card)
    giver.send("choose", cell=off_card)
    assert giver.refusal().startswith(f"{off_card} is not on this card")
    giver.send("choose", cell=card[2])
    assert giver.view(lambda v: v["game"]["phase"] == "clue1")["you"]["target"] == card[2]
    giver.send("clue")
    left.view(lambda v: v["game"]["phase"] == "guess1")
    right.send("cursor", cell="B2")
    assert right.refusal() == "it is player 1's turn, not player 2's"  # the engine's words
    left.send("cursor", cell="C3")
    assert right.view(lambda v: v["game"]["cursor"] == "C3")["game"]["turn"] == 1
    table.wait_until(lambda: table.app.ui.cursor == parse_cell("C3"))
    left.send("place", cell="C3")
    left.view(lambda v: v["game"]["pending"] == [1, "C3"])
    left.send("take_back")
    left.view(lambda v: v["game"]["pending"] is None)
    left.send("place", cell="D4")
    left.view(lambda v: v["game"]["pending"] == [1, "D4"])
    right.send("place", cell="D4")  # would commit left's pawn first: taken (and nothing changes)
    assert right.refusal() == "D4 already has a pawn"
    right.send("place", cell="E5")  # commits left's pawn: it stays
    left.view(lambda v: v["game"]["pawns"] == [[1, "D4"]])
    left.send("take_back")
    assert left.refusal().startswith("you have no pawn to take back")
    right.send("confirm")
    giver.view(lambda v: v["game"]["phase"] == "clue2")
    left.send("pass")
    assert left.refusal() == "only player 0 (the cue giver) gives the clues"
    giver.send("pass")
    over = left.view(lambda v: v["game"]["phase"] == "round_over")
    assert over["game"]["target"] == card[2]
    assert [p[1] for p in over["game"]["pawns"]] == ["D4", "E5"]
    for _ in range(3):  # the reveal's frame, points and scoreboard, then the next round
        left.send("next")
    right.view(lambda v: v["game"]["round"] == 2)
    record = [(line["action"], line.get("cell")) for line in table.record()]
    assert record == [("new_game", None), ("choose_target", card[2]), ("clue", None), ("place", "C3"),
                      ("take_back", None), ("place", "D4"), ("place", "E5"), ("skip_clue", None), ("next", None)]


def test_a_phones_first_clue_in_a_language_never_reads_its_word_lists_on_the_app_loop(table, monkeypatch):
    """The clue check's word lists for a language are read the first time a clue in it is checked
    (Vietnamese's lexicon is large): for a phone's clue that is on the computer players' thread
    (which reads them for the computers too) before the clue reaches the app, so the panel's
    frames never wait for it."""
    readers = []
    real = clue.word_list
    monkeypatch.setattr(clue, "word_list", lambda lang: readers.append((lang, threading.current_thread())) or real(lang))
    clue._known.cache_clear()
    try:
        giver, *_ = seated_three(table)
        card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
        giver.send("choose", cell=card[1])
        giver.send("clue", text="chuối", lang="vi")
        giver.view(lambda v: v["game"]["phase"] == "guess1")
    finally:
        clue._known.cache_clear()  # read again, by the real word lists, by whoever needs them next
    assert table.app.game.clues == (Clue(("chuối",), "vi", True),)
    read_by = [thread for lang, thread in readers if lang == "vi"]
    assert len(read_by) == 1 and read_by[0] is not table.thread
    assert read_by[0].name.startswith("computer-player")  # the one thread that reads them for the computers too


def test_the_givers_card_and_target_reach_no_other_phone_before_the_reveal(table):
    giver, *others = seated_three(table)
    watcher = table.phone().join(table.code, 5)  # a colour beyond the 3 players: watching
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    giver.send("choose", cell=card[1])
    giver.send("clue")
    giver.view(lambda v: v["game"]["phase"] == "guess1")
    for phone in [*others, watcher]:
        phone.view(lambda v: v["game"]["phase"] == "guess1")
        for message in phone.log:
            if message["t"] == "view" and message["game"] is not None:
                assert message["game"]["target"] is None
                assert message["you"] in (None, {"card": None, "target": None, "free": False, "holder": False})
            assert "deck" not in str(message) and "seed" not in str(message)


def test_a_reload_gets_the_seat_back_with_the_token_and_nothing_else(table):
    phone = table.phone().join(table.code, 4)
    phone.close()
    again = table.phone()
    again.send("resume", token=phone.token)
    assert again.expect("seated")["seat"] == 4 and "token" not in again.log[-1]
    stranger = table.phone()
    stranger.send("resume", token="0" * 32)
    assert stranger.refusal().startswith("this phone's seat is gone")
    stranger.send("cursor", cell="A1")
    assert stranger.refusal() == "type the room code the panel shows first"


def test_leaving_frees_the_seat_and_the_host_can_free_another(table):
    host = table.phone().join(table.code, 0)
    other = table.phone().join(table.code, 1)
    other.send("free_seat", seat=0)
    assert other.refusal() == "only the host can free another phone's seat"
    host.send("free_seat", seat=1)
    assert other.view(lambda v: v["seat"] is None)["taken"] == [0]
    host.send("leave")
    host.view(lambda v: v["seat"] is None and v["taken"] == [])


def test_the_host_pin_makes_any_admitted_phone_the_host():
    with PhoneTable(pin="2468") as table:
        table.phone().join(table.code, 0)
        guest = table.phone().join(table.code, 1)
        guest.send("host", pin="1111")
        assert guest.refusal() == "wrong host PIN"
        guest.send("host", pin="2468")
        assert guest.view(lambda v: v["host"])["seat"] == 1


def test_a_console_restart_keeps_the_seats_and_the_game(redis_server):
    with PhoneTable(store_url=redis_server.url) as table:
        phones = seated_three(table)
        card = phones[0].view(lambda v: v["you"]["card"] is not None)["you"]["card"]
        phones[0].send("choose", cell=card[0])
        phones[1].view(lambda v: v["game"]["phase"] == "clue1")
        tokens = [phone.token for phone in phones]
        table.wait_until(lambda: len(table.app.store.get_setting("phone_seats") or []) == 3)
    with PhoneTable(store_url=redis_server.url) as table:
        again = [table.phone() for _ in tokens]
        for phone, token in zip(again, tokens):
            phone.send("resume", token=token)
        assert [phone.expect("seated")["seat"] for phone in again] == [0, 1, 2]
        assert again[0].view(lambda v: v["seat"] == 0)["host"] is True
        again[0].send("clue")
        assert again[0].refusal().startswith("the panel asks whether to carry on the stored game")
        table.press("a")  # the host resumes on the panel
        again[0].send("clue")
        again[1].view(lambda v: v["game"]["phase"] == "guess1")
        kept = table.app.store.get_setting("phone_seats")
        assert not any(token in str(kept) for token in tokens)  # only the tokens' digests are stored


def test_phones_and_the_joystick_mix(table):
    guessers = [table.phone().join(table.code, 1), table.phone()]  # red and yellow play on the joystick
    guessers[1].send("join", code=table.code)  # a guest in the room, without a colour
    guessers[1].expect("admitted")
    guessers[0].send("new_game", players=3, variant="cards", first_giver=0)
    guessers[0].view(lambda v: v["game"] is not None)
    assert guessers[1].view(lambda v: v["game"] is not None)["open"] == list(range(3, 10))  # not red nor yellow
    table.press("a", 2)  # the joystick takes the hand-off (A twice): the panel's secret screen
    table.wait_until(lambda: table.app.ui.screen == "secret")
    table.press("a")  # and chooses the card's first colour
    guessers[0].view(lambda v: v["game"]["phase"] == "clue1")
    table.press("a")  # the clue, on the joystick
    guessers[0].view(lambda v: v["game"]["phase"] == "guess1")
    guessers[0].send("place", cell="A1")
    guessers[0].view(lambda v: v["game"]["pending"] == [1, "A1"])
    table.press("right")  # the next player's (yellow's, on the joystick) first press lets the phone's pawn stand
    guessers[1].view(lambda v: v["game"]["pending"] is None and v["game"]["pawns"] == [[1, "A1"]])
    table.press("a")  # yellow places on the joystick
    guessers[0].view(lambda v: v["game"]["phase"] == "clue2")
    table.press("a", 2)  # yellow's pawn stands, then red's second clue: the second guesses start from yellow
    guessers[0].view(lambda v: v["game"]["phase"] == "guess2")
    table.press("down")
    table.press("a")  # yellow's second pawn; orange is next, on its phone
    guessers[0].view(lambda v: v["game"]["turn"] == 1)
    table.press("left", 3)  # the joystick cannot move or place for orange's phone
    table.press("a")
    table.settle()
    assert len(table.app.game.pawns) == 3 and table.app.game.phase == "guess2"
    guessers[0].send("place", cell="P30")
    guessers[0].view(lambda v: v["game"]["pending"] == [1, "P30"])


def test_a_giver_with_a_phone_never_gets_the_card_on_the_panel(table):
    phones = seated_three(table)
    table.press("a", 2)  # someone at the joystick tries to open the giver's secret screen
    table.settle()
    assert table.app.ui.screen == "handoff"  # it stays closed: the card is on the giver's phone
    phones[1].send("free_seat", seat=0)
    assert phones[1].refusal() == "only the host can free another phone's seat"
    phones[0].send("leave")  # the giver's phone is gone (or the host freed the seat)
    table.wait_until(lambda: 0 not in table.app.ui.seating.taken)
    table.press("a", 2)
    table.wait_until(lambda: table.app.ui.screen == "secret")  # the joystick is the way now


def test_in_free_the_giver_picks_any_cell(table):
    giver = table.phone().join(table.code, 0)
    others = [table.phone().join(table.code, seat) for seat in (1, 2)]
    giver.send("new_game", players=3, variant="free", first_giver=0)
    view = giver.view(lambda v: v["you"]["free"] is True)
    assert view["you"]["card"] is None
    giver.send("choose", cell="P30")
    assert giver.view(lambda v: v["game"]["phase"] == "clue1")["you"]["target"] == "P30"
    assert others[0].view(lambda v: v["game"]["phase"] == "clue1")["you"] == {"card": None, "target": None, "free": False, "holder": False}


def test_the_first_messages_of_a_new_connection_carry_no_secret(table):
    """boardgame.io #1159: a secret leaked through the initial state. Here the first view of a
    connection is built like every other: a guesser reconnecting mid-round gets no card."""
    giver, left, _ = seated_three(table)
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    fresh = table.phone()
    first = [fresh.receive(), fresh.receive()]
    assert [m["t"] for m in first] == ["board", "view"] and first[1]["you"] is None
    assert first[1]["game"]["phase"] == "choose_target" and first[1]["game"]["target"] is None
    fresh.send("resume", token=left.token)
    assert fresh.view(lambda v: v["seat"] == 1)["you"]["card"] is None
    again = table.phone()
    again.send("resume", token=giver.token)
    assert again.view(lambda v: v["seat"] == 0)["you"]["card"] == card


def test_the_host_sets_the_brightness_from_the_phone(table):
    host = table.phone().join(table.code, 0)
    guest = table.phone().join(table.code, 1)
    before = table.app.ui.brightness
    guest.send("brightness", delta=-1)
    assert guest.refusal().startswith("only the host can do that")
    host.send("brightness", delta=-1)
    table.wait_until(lambda: table.app.ui.brightness == round(before - 0.1, 2))
    table.wait_until(lambda: table.app.store.get_setting("brightness") == table.app.ui.brightness)


def test_whoever_takes_the_givers_colour_after_the_deal_sees_a_guessers_view(table):
    """The seat does not bring the card or the target with it: a guesser who moved to the giver's
    colour (handed over by the host) learns nothing of the round's secret."""
    giver, guesser, yellow = seated_three(table)
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    giver.send("choose", cell=card[0])
    guesser.view(lambda v: v["game"]["phase"] == "clue1")
    giver.send("free_seat", seat=0)  # the host gives their own colour to the joystick
    assert giver.expect("unseated")["why"] == "the host handed this colour to the joystick"
    guesser.view(lambda v: 0 not in v["taken"] and v["host"])  # orange, the first seat still held, hosts now
    guesser.send("leave")
    guesser.view(lambda v: v["seat"] is None)
    yellow.view(lambda v: v["host"])
    guesser.send("take", seat=0)
    assert guesser.refusal() == "that colour plays on the joystick in this game: the host can hand it to a phone"
    yellow.send("free_seat", seat=0)  # the host hands red over to a phone
    guesser.view(lambda v: 0 in v["open"])
    guesser.send("take", seat=0)
    assert guesser.expect("seated")["seat"] == 0
    assert guesser.view(lambda v: v["seat"] == 0)["you"] == {"card": None, "target": None, "free": False, "holder": False}
    guesser.send("clue")  # the clues are the seat's to give, with what a guesser knows
    yellow.view(lambda v: v["game"]["phase"] == "guess1")
    assert all(m["you"] is None or not m["you"]["target"] for m in guesser.log if m["t"] == "view")


def test_a_token_brought_back_on_another_phone_moves_the_seat_there(table):
    giver, _, _ = seated_three(table)
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    copy = table.phone()
    copy.send("resume", token=giver.token)  # the same token, the first phone still connected
    assert copy.view(lambda v: v["seat"] == 0)["you"]["card"] == card
    assert giver.expect("unseated") == {"t": "unseated", "seat": 0, "n": None, "key": "taken_elsewhere", "args": {},
                                        "why": "this colour was taken up on another phone", "_seen": True}
    assert giver.view(lambda v: v["seat"] is None)["you"] is None
    giver.send("choose", cell=card[0])
    assert giver.refusal() == "choose a colour first"


def test_a_phones_move_under_the_host_menu_keeps_the_menu_and_closing_it_shows_the_game_as_it_stands(table):
    """The menu once returned to the screen it was opened over: a phone giver's pick under it
    left the panel on a hand-off for a round being guessed, and the quit question then asked
    from the reveal went back to a guessing screen with nothing to guess (a ValueError that
    stopped the simulator)."""
    from hal.inputs.events import PRESS, RELEASE, InputEvent

    giver, *others = seated_three(table)
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    table.app.events.put(InputEvent("start", PRESS, 0.0))  # held since long ago: the host menu
    table.wait_until(lambda: table.app.ui.screen == "host")
    table.app.events.put(InputEvent("start", RELEASE, 1e9))
    giver.send("choose", cell=card[0])
    others[0].view(lambda v: v["game"]["phase"] == "clue1")
    table.settle()
    assert table.app.ui.screen == "host" and table.app.ui.menu_return[0] == "play"
    table.press("b")  # continue: the game as it now stands
    table.wait_until(lambda: table.app.ui.screen == "play")


def test_a_next_while_the_rounds_last_pawn_waits_shows_the_reveal_and_skips_nothing(table):
    """Another phone's next (a tap left from the last reveal) lets the last pawn stand and shows
    the reveal, as the joystick's A does: the press that reveals the target is used up."""
    giver, left, right = seated_three(table)
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    giver.send("choose", cell=card[0])
    giver.send("clue")
    left.view(lambda v: v["game"]["phase"] == "guess1")
    left.send("place", cell="A1")
    right.send("place", cell="B2")
    giver.view(lambda v: v["game"]["phase"] == "clue2")
    giver.send("clue")
    right.view(lambda v: v["game"]["phase"] == "guess2" and v["game"]["turn"] == 2)
    right.send("place", cell="C3")
    left.send("place", cell="D4")
    left.view(lambda v: v["game"]["pending"] == [1, "D4"])
    right.send("next")
    assert left.view(lambda v: v["game"]["phase"] == "round_over")["game"]["target"] == card[0]
    table.settle()
    assert table.app.ui.screen == "reveal" and table.app.game.round == 1
