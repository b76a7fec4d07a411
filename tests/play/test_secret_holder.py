"""The round's secret has one holder: whatever path a seat takes to another phone (or from a
phone to the joystick), on whatever screen, its new occupant never learns the card, the target or
where the giver pointed. Through the real server and app loop, with phones as websocket clients.

The leaks issue #17 found, each with its variants on the other screens:
- a guest took a joystick giver's seat during the hand-off and got the card (and could choose);
- the host freed a phone giver's seat during the hand-off and a second tab took it: the card;
- a menu over the secret screen (host, brightness, the simulator's quit question) let a guest
  take the giver's seat, and the joystick giver's pick then reached the guest as its target.
And one the secret machine found: the current limiter held the secret screen's level into the
board after it, so where the joystick giver pointed showed in the room's and /panel's light.
"""

from __future__ import annotations

import time
from dataclasses import replace
from unittest import mock

import pytest

from console.game import rules
from console.game.board import ALL_CELLS, distance
from console.game.record import action_to_json
from console.game.rules import Next, NewGame
from console.play import controller
from console.play.ports import Chore
from console.store.games import GameStore
from console.view.ui import HOST_MENU, REVEAL_SCORES_S
from console.web.hub import Hub
from console.web.panel import PanelStream
from hal.inputs.events import PRESS, QUIT, RELEASE, InputEvent
from tests.gameplay import play_quiet_rounds, play_round
from tests.phones import Phone, PhoneTable
from tests.play.test_panel_app import FPS, Player

CODES = ["ACEF", "HKPR", "TXYA", "CEFH", "KPRT"]


@pytest.fixture
def table():
    codes = iter(CODES * 20)
    with PhoneTable(codes=lambda: next(codes)) as t:
        yield t


def secrets_seen(phone: Phone) -> list:
    """Every card or target this phone was sent as its own (`you`) before a reveal."""
    seen = []
    for message in phone.log:
        you = message.get("you") if message["t"] == "view" else None
        if you and (you.get("card") or you.get("target")):
            seen.append((message["game"]["phase"], you.get("card"), you.get("target")))
    return seen


def sync(table: PhoneTable, *phones: Phone) -> None:
    """Every phone has been sent everything the console has done so far."""
    table.settle()
    table.settle()  # the first chore ran before that tick published: the second after it
    for phone in phones:
        phone.send_raw("sync")  # refused in order behind the views already queued for it
        while True:
            message = phone.receive()
            if message["t"] == "refused" and message["why"] == "not a JSON message":
                message["_seen"] = True
                break


def hold_start(table: PhoneTable) -> None:
    """Start held past the host menu's hold, then released (on the app's clock)."""
    now = time.monotonic()
    table.app.events.put(InputEvent("start", PRESS, now - controller.HOST_MENU_HOLD_S - 0.1))
    table.settle()
    table.settle()
    table.app.events.put(InputEvent("start", RELEASE, time.monotonic()))


def press_later(table: PhoneTable, button: str) -> None:
    """A press past the grace after a screen that changed by itself."""
    table.wait_until(lambda: table.app._changed_by_itself_at < time.monotonic() - controller.GRACE_S - 0.05)
    table.press(button)
    table.settle()


def screen(table: PhoneTable) -> str:
    return table.app.ui.screen


# --- reaching each screen with a joystick giver -------------------------------------------------


def joystick_giver(table: PhoneTable, variant: str = "cards") -> tuple[Phone, Phone]:
    """Red (seat 0) plays on the joystick and gives the first cue; the host's phone is orange."""
    host = table.phone().join(table.code, 1)
    guest = table.phone()
    guest.send("join", code=table.code)
    guest.expect("admitted")
    host.send("new_game", players=3, variant=variant, first_giver=0)
    host.view(lambda v: v["game"] is not None)
    table.wait_until(lambda: screen(table) == "handoff")
    return host, guest


def open_secret(table: PhoneTable) -> None:
    table.press("a", 2)
    table.wait_until(lambda: screen(table) == "secret")


def to_screen(table: PhoneTable, name: str) -> None:
    """From the hand-off, the joystick giver's way to `name`."""
    if name == "handoff":
        return
    if name == "handoff armed":
        table.press("a")
        table.wait_until(lambda: table.app.ui.armed_at >= 0)
        return
    open_secret(table)
    if name == "secret":
        return
    if name == "quit question":
        table.press(QUIT)
        table.wait_until(lambda: screen(table) == "confirm")
        return
    hold_start(table)
    table.wait_until(lambda: screen(table) == "host")
    if name == "brightness menu":
        table.press("down", HOST_MENU.index("brightness"))
        table.press("a")
        table.wait_until(lambda: screen(table) == "brightness")
    elif name == "new game question":
        table.press("down", HOST_MENU.index("new_game"))
        table.press("a")
        table.wait_until(lambda: screen(table) == "confirm")


def back_to_secret(table: PhoneTable, name: str) -> None:
    """Close the menu `to_screen` opened: the giver's secret screen again."""
    if name == "brightness menu":
        table.press("b")
        table.wait_until(lambda: screen(table) == "host")
    if name in ("host menu", "brightness menu", "quit question", "new game question"):
        table.press("b")
        if name == "new game question":
            table.wait_until(lambda: screen(table) == "host")
            table.press("b")
    if name in ("handoff", "handoff armed"):
        table.press("b")  # any other press disarms the first A
        table.settle()
        open_secret(table)
    table.wait_until(lambda: screen(table) == "secret")


JOYSTICK_SCREENS = ["handoff", "handoff armed", "secret", "host menu", "brightness menu", "quit question",
                    "new game question"]


def cards_seen(phone: Phone) -> list:
    return [card for _, card, _ in secrets_seen(phone) if card]


def card_now(table: PhoneTable) -> list[str]:
    return [str(c) for c in table.app.game.card_cells]


@pytest.mark.parametrize("opened", [False, True], ids=["taken", "handed over by the host, then taken"])
@pytest.mark.parametrize("where", JOYSTICK_SCREENS)
def test_a_guest_taking_the_joystick_givers_colour_never_gets_its_card_or_pick(table, where, opened):
    host, guest = joystick_giver(table)
    to_screen(table, where)
    dealt = card_now(table)  # the card the joystick giver has seen (or may see)
    if opened:
        host.send("free_seat", seat=0)
    guest.send("take", seat=0)
    sync(table, host, guest)
    if any(m["t"] == "seated" for m in guest.log):
        guest.send("choose", cell=dealt[0])  # the guest tries to pick for the giver
    sync(table, guest)
    assert dealt not in cards_seen(guest) and secrets_seen(host) == []
    assert table.app.game.phase == "choose_target", "someone but the round's holder chose the target"
    if not opened:  # red stays the joystick's: its giver chooses on the panel as before
        assert guest.refusal() == "that colour plays on the joystick in this game: the host can hand it to a phone"
        back_to_secret(table, where)
        table.press("right")  # the joystick giver points at another cell of the card, then picks it
        table.press("a")
        table.wait_until(lambda: table.app.game.phase == "clue1")
        sync(table, host, guest)
        assert secrets_seen(guest) == [] and secrets_seen(host) == []
        return
    # red is the guest's phone's now: a new card for it, and the panel's secret screen is shut
    assert table.app.ui.screen != "secret" and (table.app.ui.menu_return or ("",))[0] != "secret"
    mine = guest.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    assert mine != dealt and table.record()[-1] == {"action": "redeal"}
    back_to_the_game(table, where)
    table.press("a", 2)  # the joystick cannot open the card any more
    table.settle()
    assert screen(table) == "handoff"
    guest.send("choose", cell=mine[3])
    assert guest.view(lambda v: v["game"]["phase"] == "clue1")["you"]["target"] == mine[3]
    sync(table, host, guest)
    assert dealt not in cards_seen(guest) and secrets_seen(host) == []


def back_to_the_game(table: PhoneTable, where: str) -> None:
    """Close the menu `to_screen` opened, if any."""
    if where == "brightness menu":
        table.press("b")
        table.wait_until(lambda: screen(table) == "host")
    if where == "new game question":
        table.press("b")
        table.wait_until(lambda: screen(table) == "host")
    if where in ("host menu", "brightness menu", "quit question", "new game question"):
        table.press("b")
    table.wait_until(lambda: screen(table) == "handoff")


def test_a_guest_taking_the_tie_break_givers_colour_on_the_notice_gets_nothing_of_its_card(table):
    """The tie-break notice (the new round's card already drawn) is a screen too."""
    host, guest = joystick_giver(table)
    tied, record = tied_before_the_last_next()
    load(table, tied, record, reveal_done=True)
    table.wait_until(lambda: table.app.game is tied)
    press_later(table, "a")  # the next round: a tie-break, its notice first
    table.wait_until(lambda: screen(table) == "tiebreak")
    giver = table.app.game.giver
    assert giver == 0 and table.app.game.tiebreak  # red gives the tie-break's cue, on the joystick
    dealt = card_now(table)
    guest.send("take", seat=giver)
    sync(table, host, guest)
    host.send("free_seat", seat=giver)
    guest.send("take", seat=giver)
    mine = guest.view(lambda v: v["you"] is not None and v["you"]["card"] is not None)["you"]["card"]
    sync(table, host, guest)
    assert mine != dealt and dealt not in cards_seen(guest) and secrets_seen(host) == []


def tied_before_the_last_next() -> tuple[rules.GameState, list]:
    """A 3-player cards game at the reveal of its last regular round, orange and yellow tied (the
    tie-break's giver is red, on the joystick), and its record."""
    record: list = []
    real_apply = rules.apply

    def apply(state, action):
        record.append(action)
        return real_apply(state, action)

    with mock.patch.object(rules, "apply", apply):
        state = rules.apply(None, NewGame(players=3, seed=11, first_giver=0))
        target = state.card_cells[0]
        two_away = [c for c in ALL_CELLS if distance(c, target) == 2]
        state = play_round(state, target=target, first={1: two_away[0], 2: two_away[1]})
        assert state.scores[1] == state.scores[2] > state.scores[0]
        state = play_quiet_rounds(rules.apply(state, Next()), 4)
        state = play_round(state)
    assert rules.apply(state, Next()).tiebreak
    return state, record


def load(table: PhoneTable, game: rules.GameState, record: list, reveal_done: bool = False) -> None:
    """Put `game` (its record stored first) on the panel, as if it had been played there."""

    def put(store) -> None:
        store.abandon()
        store.start_game(action_to_json(record[0]))
        for action in record[1:]:
            store.append(action_to_json(action))
        now = time.monotonic()
        ui = controller.screen_for(game, table.app.ui, now)
        if reveal_done:
            ui = replace(ui, since=now - REVEAL_SCORES_S - 1)
        table.app.put_on(game, ui, now - 1)

    table.app.events.put(Chore(put))
    table.settle()


# --- a phone giver ------------------------------------------------------------------------------


def phone_giver(table: PhoneTable, variant: str = "cards") -> tuple[Phone, Phone, Phone, Phone]:
    """Red's phone gives the cue; orange is the host; yellow guesses; a fourth phone is in the room."""
    host = table.phone().join(table.code, 1)  # the first seated: the host
    giver = table.phone().join(table.code, 0)
    yellow = table.phone().join(table.code, 2)
    tab = table.phone()
    tab.send("join", code=table.code)
    tab.expect("admitted")
    host.send("new_game", players=3, variant=variant, first_giver=0)
    giver.view(lambda v: v["game"] is not None and v["game"]["phase"] == "choose_target")
    return giver, host, yellow, tab


PHONE_PHASES = ["choose_target", "clue1", "guess1", "clue2", "guess2"]


def phone_round_to(table: PhoneTable, giver: Phone, yellow: Phone, host: Phone, phase: str) -> str | None:
    """Play the phone giver's round on to `phase`; the target chosen (None before)."""
    if phase == "choose_target":
        return None
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    giver.send("choose", cell=card[1])
    if phase != "clue1":
        giver.send("clue")
    if phase in ("clue2", "guess2"):
        host.view(lambda v: v["game"]["turn"] == 1)
        host.send("place", cell="A1")
        yellow.view(lambda v: v["game"]["pending"] == [1, "A1"])
        yellow.send("place", cell="A2")
    if phase == "guess2":
        giver.view(lambda v: v["game"]["phase"] == "clue2")
        giver.send("clue")
    table.wait_until(lambda: table.app.game.phase == phase)
    return card[1]


@pytest.mark.parametrize("path", ["freed by the host", "left"])
@pytest.mark.parametrize("phase", PHONE_PHASES)
def test_a_phone_givers_seat_taken_by_a_second_tab_brings_no_secret(table, phase, path):
    giver, host, yellow, tab = phone_giver(table)
    phone_round_to(table, giver, yellow, host, phase)
    if path == "left":
        giver.send("leave")
    else:
        host.send("free_seat", seat=0)
    tab.send("take", seat=0)
    sync(table, giver, host, yellow, tab)
    card = table.app.game.card_cells
    tab.send("choose", cell=str(card[0]))
    sync(table, tab)
    assert secrets_seen(tab) == []
    assert secrets_seen(yellow) == [] and secrets_seen(host) == []


@pytest.mark.parametrize("phase", PHONE_PHASES)
def test_a_phone_givers_seat_given_to_the_joystick_never_shows_the_phones_secret(table, phase):
    """The host frees the giver's seat (the phone went flat): the joystick plays red from then
    on. Whoever is at the box is the seat's new occupant: the card the phone had is not theirs."""
    giver, host, yellow, tab = phone_giver(table)
    phone_card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    phone_round_to(table, giver, yellow, host, phase)
    host.send("free_seat", seat=0)
    table.wait_until(lambda: 0 not in table.app.ui.seating.taken)
    press_later(table, "a")
    table.press("a")
    table.settle()
    if screen(table) == "secret":
        shown = [str(c) for c in table.app.game.card_cells]
        assert shown != phone_card, "the panel showed the card the phone had"
        assert table.app.game.target is None


def test_a_token_brought_to_another_phone_takes_the_secret_with_it_and_only_there(table):
    giver, host, yellow, tab = phone_giver(table)
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    tab.send("resume", token=giver.token)  # the giver's own token, on their other phone
    assert tab.view(lambda v: v["seat"] == 0)["you"]["card"] == card
    assert giver.expect("unseated")["why"] == "this colour was taken up on another phone"
    giver.view(lambda v: v["seat"] is None)
    before = len(giver.log)
    giver.send("choose", cell=card[2])  # the old phone has no seat any more
    assert giver.refusal() == "choose a colour first"
    tab.send("choose", cell=card[2])
    assert tab.view(lambda v: v["game"]["phase"] == "clue1")["you"]["target"] == card[2]
    sync(table, giver, tab)
    assert [m for m in giver.log[before:] if m["t"] == "view" and m["you"]] == []


# --- the joystick and the phones each act only for their own seats ------------------------------


def test_the_joystick_does_not_place_for_a_phone_guesser(table):
    giver, host, yellow, tab = phone_giver(table)
    card = giver.view(lambda v: v["you"]["card"] is not None)["you"]["card"]
    giver.send("choose", cell=card[0])
    giver.send("clue")
    host.view(lambda v: v["game"]["phase"] == "guess1" and v["game"]["turn"] == 1)
    press_later(table, "a")  # orange's turn, orange is on a phone: the joystick cannot place for it
    sync(table, host)
    assert table.app.game.pawns == ()
    assert table.app.game.phase == "guess1"


def test_a_phone_cannot_take_a_joystick_players_colour_mid_game(table):
    host, guest = joystick_giver(table)
    guest.send("take", seat=2)  # yellow plays on the joystick in this game
    assert guest.refusal().startswith("that colour plays on the joystick")
    host.send("free_seat", seat=2)  # the host hands yellow to a phone
    guest.send("take", seat=2)
    assert guest.expect("seated")["seat"] == 2


# --- a restart ----------------------------------------------------------------------------------


@pytest.mark.parametrize("opened", [False, True], ids=["taken", "handed over by the host, then taken"])
def test_a_restart_hands_the_joystick_givers_card_to_no_phone(redis_server, opened):
    """The power goes while the joystick giver looks at the card; at the restart a guest takes
    red before the host resumes the game."""
    codes = iter(CODES * 4)
    with PhoneTable(store_url=redis_server.url, codes=lambda: next(codes)) as table:
        host, _ = joystick_giver(table)
        open_secret(table)
        dealt, token = card_now(table), host.token
        table.wait_until(lambda: len(table.app.store.get_setting("phone_seats") or []) == 1)
    with PhoneTable(store_url=redis_server.url, codes=lambda: next(codes)) as table:
        host = table.phone()
        host.send("resume", token=token)
        host.expect("seated")
        guest = table.phone()
        guest.send("join", code=table.code)
        guest.expect("admitted")
        if opened:
            host.send("free_seat", seat=0)
        guest.send("take", seat=0)
        sync(table, host, guest)
        assert dealt not in cards_seen(guest)
        table.press("a")  # the host resumes the stored game on the panel
        table.wait_until(lambda: screen(table) == "handoff")
        sync(table, host, guest)
        assert dealt not in cards_seen(guest) and secrets_seen(host) == []
        assert (cards_seen(guest) != []) == opened  # a phone handed red gets a card of its own


def test_a_restart_gives_the_phone_givers_target_back_to_that_phone_only(redis_server):
    codes = iter(CODES * 4)
    with PhoneTable(store_url=redis_server.url, codes=lambda: next(codes)) as table:
        giver, host, yellow, tab = phone_giver(table)
        target = phone_round_to(table, giver, yellow, host, "clue1")
        tokens = (host.token, giver.token)
        table.wait_until(lambda: len(table.app.store.get_setting("phone_seats") or []) == 3)
    with PhoneTable(store_url=redis_server.url, codes=lambda: next(codes)) as table:
        host, giver = table.phone(), table.phone()
        for phone, token in zip((host, giver), tokens):
            phone.send("resume", token=token)
            phone.expect("seated")
        table.press("a")  # resume
        assert giver.view(lambda v: v["game"]["phase"] == "clue1" and v["you"]["target"])["you"]["target"] == target
        host.send("free_seat", seat=0)  # the giver's phone goes flat after the restart
        tab = table.phone()
        tab.send("join", code=table.code)
        tab.expect("admitted")
        tab.send("take", seat=0)
        sync(table, host, tab)
        assert secrets_seen(tab) == [] and secrets_seen(host) == []


POINTING_STEPS = 7  # from the centre up to the top row, whose bright cells dim the whole panel


def panel_after_pointing(steps: int) -> tuple[str, list[bytes | None], float]:
    """A joystick giver's free round on a virtual clock: the secret screen opened, the finger
    moved `steps` cells up (then still, so every frame comes at the same time whatever the
    pointing) and the target chosen there. The target, what /panel streamed through it and on
    the board after it, and the brightness the limiter gave the LEDs for that board."""
    store = GameStore("memory://")
    store.start_game(action_to_json(NewGame(3, seed=1, variant="free")))
    player = Player(store)
    app, hub = player.app, Hub()
    app.publisher, stream = hub, PanelStream(hub, app.stage)
    player.taps("a", "a", "a")  # resume, then A twice on the hand-off
    assert app.ui.screen == "secret"
    streamed = []
    for step in range(POINTING_STEPS):
        if step < steps:
            player.tap("up")
        else:
            player.run(2 / FPS)  # as long as a tap
        streamed.append(stream.frame_message(spectator=True))
    player.tap("a")
    assert app.ui.screen == "play" and app.game.phase == "clue1"
    player.run(0.5)
    streamed.append(stream.frame_message(spectator=True))
    return str(app.game.target), streamed, app.stage.last_brightness


def test_where_the_joystick_giver_points_never_changes_the_panels_light_after_it():
    """The current limiter holds a level from frame to frame: the secret screen with the finger
    on a bright cell needs the panel a step dimmer, and the board after the choice kept that
    step, on the LEDs and on /panel (found by the secret machine, tests/play/test_secret_machine.py)."""
    centre, top = panel_after_pointing(0), panel_after_pointing(POINTING_STEPS)
    assert (centre[0], top[0]) == ("H15", "A15")
    assert top[1] == centre[1]
    assert top[2] == centre[2]
