"""A state machine over two real consoles that differ only in the round's secret (see
tests/secret_worlds.py): random interleavings of phones joining, taking, leaving and freeing
seats, tokens moved to other phones, new games (some with computer players, set up on the
joystick), joystick presses (menus, the host menu's hold, the brightness menu, the quit
question), phones' moves, computer players' moves, time passing, restarts and tie-breaks.

The invariant, after every step until a round is revealed (from then the worlds' public games
differ; they are compared again from the next new game): every message to every connection that
does not hold the round's secret, and every /panel frame and hint, is the same in both worlds;
every computer guesser was given the same state in both (and so moved alike); a computer giver
is the round's one holder in both. Who holds the secret is this file's own reckoning from the
rules in game/seating.py's docstring (the token holding the giver's colour at the deal, the
panel, or the computer player the record names in that seat), not the console's.

The CI's run: a tour (one party through every screen and phase, each menu over the secret,
the giver's colour changing hands before and after the choice, a restart, a tie-break and a
game's end, by the machine's own steps: `tour`), a tour with computer players giving and
guessing (`computers_tour`) and 5 derandomized random examples of 30 steps.
`HUES_SECRET_MACHINE=N` runs N random examples instead, a failure shrunk (a longer campaign by
hand: `HUES_SECRET_MACHINE=300 pytest tests/play/test_secret_machine.py --hypothesis-show-statistics`).
Four ways to break the binding are injected in turn to show the machine finds each: in CI by
a tour, in a campaign by the random examples alone.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, Phase, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test

from console.game import rules
from console.game.board import ALL_CELLS
from console.game.record import action_to_json
from console.play import controller
from console.play.ports import Chore
from console.game.clue import LANGUAGES
from console.game.seating import PANEL, computer_holder, is_computer, seat_computers
from console.play.computers import PACE_S
from console.view.ui import HOST_MENU, MENU_SCREENS, REVEAL_SCORES_S, SCREENS, SETUP_ITEMS
from hal.inputs.events import PRESS, QUIT, RELEASE, InputEvent
from tests.secret_worlds import Device, Phone, World, last_reveal, normalised, press as _press

PHONES = 4  # devices (phones or tabs), each with a connection to each world
SEATS = 5
TICK_S = 0.1
CELLS = ("A1", "C5", "H15", "K20", "P30")
EXAMPLES = int(os.environ.get("HUES_SECRET_MACHINE", "0") or 0)
PHONE_ACTIONS = ("connect", "take", "take_the_givers_colour", "take_the_givers_colour", "leave", "free",
                 "hand_the_givers_colour_over", "hand_the_givers_colour_over", "move_token", "new_game",
                 "cursor", "place", "choose", "take_back", "confirm", "clue", "pass", "next", "abandon",
                 "brightness")
JOYSTICK_ACTIONS = ("press", "press", "press", "hold_start", "host_item", "quit", "wait", "restart", "last_reveal")
REACHED: set[tuple] = set()  # what the runs of this process reached (see `_tally`)


class TwoConsoles(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        first = World("a", 101)
        self.worlds = [first, World("b", 202, spoken=first.spoken)]
        self.t = 1.0
        for world in self.worlds:
            world.start(self.t)
        self.devices = [Device() for _ in range(PHONES)]
        self.tokens: list[dict[str, int]] = [{}, {}]  # each world's token -> token id
        self.seats: dict[int, int] = {}  # token id -> the seat it holds
        self.next_token = 0
        self.holder: int | str | None = None  # the round's holder: a token id, PANEL, a computer's, or None
        self.deal: tuple | None = None
        self.occupant: int | str | None = None
        self.diverged = False  # a round with another target in each world was revealed
        self.menus = 0  # menus opened over the game by its moves (which one is next)
        self.endings = 0  # stored games put on at their last reveal (tied, then not, in turn)
        self._step(lambda world, i: None)

    # --- one step: everything in both worlds, then what they sent compared ----------------------

    def _step(self, act, ticks: int = 1) -> None:
        """`act(world, i)` in each world, then `ticks` frames; compare what everyone was sent."""
        before = self._holding()
        sent: dict[int, list[list[dict]]] = {d: [[], []] for d in range(PHONES)}
        self.spoke = False
        for i, world in enumerate(self.worlds):
            world.frames = []
            world.moves.clear()
            act(world, i)
        if self.spoke:  # what the server answered the phone before the loop's next frame
            self._collect(sent)
        revealed = False  # a round's target shown at a frame of this step (the next round may follow in it)
        for _ in range(ticks):
            self.t = round(self.t + TICK_S, 6)
            woke = [world.tick(self.t) for world in self.worlds]
            if any(woke) or (self.spoke and _ == 0):  # the views, and the loop's answers to the phones
                self._collect(sent)
            revealed = revealed or any(woke) and any(_shown(world.public()) for world in self.worlds)
        for i, world in enumerate(self.worlds):
            if world.app is not None and not world.app.running:  # quit or powered off: start it again
                self._restart_world(i)
        self._reckon()
        self._compare(sent, before | self._holding(), revealed)
        self._tally()

    def _tally(self) -> None:
        """What this step reached, for the test that the CI's run reaches every screen and phase,
        a menu over each game screen, both kinds of holder and a deal made again for a new occupant."""
        app = self.worlds[0].app
        if app is None:
            return
        game, ui = app.game, app.ui
        REACHED.add(("screen", ui.screen))
        if ui.screen in MENU_SCREENS and ui.menu_return is not None:
            REACHED.add(("menu over", ui.menu_return[0]))
        if game is not None and not rules.is_terminal(game):
            REACHED.add(("phase", game.phase))
            REACHED.add(("holder", "panel" if ui.seating.secret == PANEL else "phone" if ui.seating.secret else None))
            if game.tiebreak:
                REACHED.add(("tie-break", game.phase))
            if is_computer(ui.seating.secret):
                REACHED.add(("holder", "computer"))
        elif game is not None:
            REACHED.add(("phase", game.phase))
        for move in self.worlds[0].moves:
            REACHED.add(("computer", "giver" if move.seat == move.seen.giver else "guesser", move.seen.phase))

    def _collect(self, sent) -> None:
        """What each connection was sent since the last collection; a take's token is the
        device's from then on (the page keeps it)."""
        for device in self.devices:
            for conn in device.conns or ():
                conn.ask()
        for d, device in enumerate(self.devices):
            new = [[], []]
            for i, conn in enumerate(device.conns or ()):
                messages = conn.received()
                sent[d][i] += messages
                new[i] = [m["token"] for m in messages if m["t"] == "seated" and "token" in m]
            if new[0] and new[1]:  # granted in both worlds (else what they sent differs anyway)
                device.tokens = [new[0][-1], new[1][-1]]
                for i in (0, 1):
                    self.tokens[i].setdefault(device.tokens[i], self.next_token)
                device.token_id = self.next_token
                self.next_token += 1
                seated = [m for m in sent[d][0] if m["t"] == "seated"][-1]
                self.seats[device.token_id] = seated["seat"]

    def _holding(self) -> set[int]:
        """The devices that hold the round's secret now (seated with its token)."""
        return {d for d, device in enumerate(self.devices)
                if device.token_id is not None and device.token_id == self.holder and device.seat() is not None}

    def _reckon(self) -> None:
        """Whose the round's secret is, by the rules: the giver seat's occupant at each deal, and
        at a change of occupant before the target is chosen; nobody else's."""
        taken = self.worlds[0].app.ui.seating.taken
        self.seats = {token: seat for token, seat in self.seats.items() if seat in taken}
        game = self.worlds[0].public()["game"]
        if game is None:
            self.deal = None
            return
        giver = game["giver"]
        occupant = next((token for token, seat in self.seats.items() if seat == giver), PANEL)
        if self.worlds[0].app.game.computer(giver) is not None:  # the record names a computer there
            occupant = computer_holder(giver)
        deal = (game["round"], giver, game["tiebreak"], self.worlds[0].app.game.seed)
        if deal != self.deal or (game["phase"] == "choose_target" and occupant != self.occupant):
            if game["phase"] == "choose_target":
                if deal == self.deal:
                    REACHED.add(("dealt again", "to the panel" if occupant == PANEL else "to a phone"))
                self.holder = occupant
            self.deal = deal
        self.occupant = occupant

    def _compare(self, sent, holders: set[int], revealed: bool) -> None:
        """Everything compared, unless the worlds' public games differ since a round was revealed
        (its target, hence its points, differ: compared again once they are the same, a new
        game; not while no game is on, as after a quit or a restart, which brings the game that
        differs back). Public games that differ otherwise are a leak too: the phones' views
        then differ."""
        publics = [world.public() for world in self.worlds]
        shown = revealed or any(_shown(p) for p in publics)
        equal = publics[0] == publics[1]
        if equal and not shown and publics[0]["game"] is not None:
            self.diverged = False
        elif shown and not equal:
            self.diverged = True
        if self.diverged and not equal:
            return
        a, b = (w.frames for w in self.worlds)
        assert a == b, "/panel showed something that differs with the secret"
        for d in range(PHONES):
            if d in holders:
                continue
            mine, theirs = (normalised(sent[d][i], self.tokens[i]) for i in (0, 1))
            assert mine == theirs, f"phone {d}, not the holder ({self.holder}), was sent the secret: {mine} != {theirs}"
        self._compare_computers()

    def _compare_computers(self) -> None:
        """A computer guesser is given the same state in both worlds, and so makes the same move; a
        computer giver is the round's one holder in both (so the comparisons above hold every
        phone to the same messages)."""
        a, b = ([(m.seat, m.seen, m.action) for m in world.moves if m.seat != m.seen.giver] for world in self.worlds)
        assert a == b, f"a computer guesser was given what differs with the secret: {_differing(a, b)}"
        for world in self.worlds:
            game = world.app.game
            if game is not None and not rules.is_terminal(game) and game.computer(game.giver) is not None:
                assert world.app.ui.seating.secret == computer_holder(game.giver) == self.holder, (
                    f"the computer giver is not the round's one holder: {world.app.ui.seating.secret}")

    # --- who is where ----------------------------------------------------------------------------

    def _at(self, seat: int | None) -> int | None:
        """The connected device in `seat`."""
        return next((d for d, device in enumerate(self.devices) if device.conns and device.seat() == seat), None)

    def _host(self) -> int | None:
        return next((d for d, device in enumerate(self.devices) if device.conns and device.host()), None)

    def _send(self, d: int, verb: str, per_world=None, **fields) -> None:
        """Device `d` sends the same message to each world (`per_world(world, i)`: its fields there)."""
        device = self.devices[d]
        if not device.conns:
            return
        self._step(lambda world, i: self._say(device.conns[i], verb, **fields, **(per_world(world, i) if per_world else {})))

    def _say(self, conn: Phone, verb: str, **fields) -> None:
        conn.send(verb, **fields)
        self.spoke = True

    def _press(self, button: str) -> None:
        self._step(lambda world, i: _press(world, button, self.t))

    # --- phones ------------------------------------------------------------------------------------

    @initialize(seated=st.integers(0, 3), guests=st.integers(0, 1), players=st.integers(3, 4),
                variant=st.sampled_from(rules.VARIANTS), first=st.sampled_from([None, 0, 1, 2]),
                computers=st.integers(0, 2), level=st.sampled_from(rules.COMPUTER_LEVELS),
                lang=st.sampled_from(LANGUAGES))
    def a_table(self, seated: int, guests: int, players: int, variant: str, first, computers: int = 0,
                level: str = "expert", lang: str = "en") -> None:
        """Phones at the table: the first `seated` in colours 0, 1, ... (the first is the host),
        and a guest in the room without a colour; a game started by the host's phone, or on
        the joystick when there is none or the game has computer players (set-up's BOTS)."""
        for d in range(seated + guests):
            self.connect(d)
            if d < seated:
                self.take(d, d)
        if computers:
            return self.joystick_game(players, computers, level, lang, variant, first)
        if seated:
            return self.new_game(0, players, variant, first)
        for _ in range(5):  # idle, then set-up's players, variant and first giver: its defaults
            self._press("a")

    def connect(self, d: int) -> None:
        """A phone opens the page (again: a reload comes back with its token, a new one joins)."""
        device = self.devices[d]
        for conn in device.conns or ():
            conn.close()
        device.conns = []

        def act(world, i):
            conn = Phone(world.url)
            device.conns.append(conn)
            if device.tokens is not None:
                self._say(conn, "resume", token=device.tokens[i])
            else:
                self._say(conn, "join", code="ACEF")

        self._step(act)

    def take(self, d: int, seat: int) -> None:
        self._send(d, "take", seat=seat)

    def take_the_givers_colour(self, d: int) -> None:
        game = self.worlds[0].public()["game"]
        if game is not None:
            self._send(d, "take", seat=game["giver"])

    def leave(self, d: int) -> None:
        self._send(d, "leave")

    def free(self, d: int, seat: int) -> None:
        """A hand-over by the host (or a phone that is not: refused)."""
        self._send(d, "free_seat", seat=seat)

    def hand_the_givers_colour_over(self, d: int) -> None:
        """The host gives the giver's colour to the joystick, then to phone `d`, which takes it."""
        game, host = self.worlds[0].public()["game"], self._host()
        if game is None or host is None or not self.devices[d].conns:
            return
        giver = game["giver"]
        if giver in self.worlds[0].app.ui.seating.taken:
            self._send(host, "free_seat", seat=giver)
        host = self._host()
        if host is not None:
            self._send(host, "free_seat", seat=giver)
        if self.devices[d].seat() is not None:
            self._send(d, "leave")
        self._send(d, "take", seat=giver)

    def move_token(self, src: int, dst: int) -> None:
        """The token of one phone brought to another (the giver's second phone, a copied token)."""
        source, target = self.devices[src], self.devices[dst]
        if src == dst or source.tokens is None or not target.conns:
            return
        target.tokens, target.token_id = list(source.tokens), source.token_id
        self._step(lambda world, i: self._say(target.conns[i], "resume", token=target.tokens[i]))

    def new_game(self, d: int, players: int, variant: str, first) -> None:
        self._send(d, "new_game", players=players, variant=variant, first_giver=first)

    def tap(self, d: int, verb: str, cell: str) -> None:
        self._send(d, verb, cell=cell)

    def button(self, d: int, verb: str) -> None:
        self._send(d, verb)

    # --- the game played on, by whoever's turn it is ---------------------------------------------------

    @rule(d=st.integers(0, PHONES - 1), what=st.sampled_from(PHONE_ACTIONS), x=st.integers(0, 59))
    def a_phone(self, d: int, what: str, x: int) -> None:
        """Something a phone does, anything: most of it refused, much of it seats changing hands."""
        seat, cell = x % SEATS, CELLS[x % len(CELLS)]
        if what == "connect":
            self.connect(d)
        elif what in ("take", "free"):
            getattr(self, what)(d, seat)
        elif what == "move_token":
            self.move_token(x % PHONES, d)
        elif what == "new_game":
            self.new_game(d, 3 + x % 2, rules.VARIANTS[x // 2 % 2], (None, 0, 1, 2)[x // 4 % 4])
        elif what in ("cursor", "place", "choose"):
            self.tap(d, what, cell)
        elif what == "clue" and x % 2:  # typed: taken, or refused by the check
            self._send(d, "clue", text=("sky", "red", "H15", "cielo sereno")[x // 2 % 4], lang=("en", "it")[x // 8 % 2])
        elif what in ("take_back", "confirm", "clue", "pass", "next", "abandon"):
            self.button(d, what)
        elif what == "brightness":
            self._send(d, "brightness", delta=(1, -1)[x % 2])
        else:
            getattr(self, what)(d)

    @rule(what=st.sampled_from(JOYSTICK_ACTIONS), x=st.integers(0, 11))
    def the_box(self, what: str, x: int) -> None:
        """The joystick, the simulator's keys, time, the power, a stored game put on."""
        if what == "press":
            self.press(("a", "b", "up", "down", "left", "right", "start")[x % 7])
        elif what == "wait":
            self.wait((0.5, 3.1)[x % 2])
        elif what == "last_reveal":
            self.endings += 1
            self.the_last_reveal(rules.VARIANTS[x % 2], tied=self.endings % 2 == 1)
        elif what == "host_item":
            self.host_item(HOST_MENU[x % len(HOST_MENU)])
        elif what == "quit":
            game = self.worlds[0].app.game
            if game is not None and not rules.is_terminal(game):
                self.quit_key()
        else:
            getattr(self, what)()

    @rule(moves=st.lists(st.integers(0, 11), min_size=1, max_size=12))
    def play_on(self, moves: list[int]) -> None:
        """Moves a table makes: whoever's turn it is acts (its phone, or the joystick)."""
        for move in moves:
            self._one_move(move)

    def _one_move(self, r: int) -> None:
        app = self.worlds[0].app
        game, ui, host = app.game, app.ui, self._host()
        if ui.screen in MENU_SCREENS:
            return self._press("b")
        if r == 10 and game is not None and not rules.is_terminal(game) and ui.screen in (
                "handoff", "secret", "play", "reveal", "tiebreak"):  # a menu over the game (the card stays the panel's)
            self.menus += 1
            return (self.hold_start, self.quit_key, lambda: self.host_item("brightness"))[self.menus % 3]()
        if ui.screen in ("resume", "tiebreak", "reveal", "game_over"):
            return self._press("a")
        if game is None or rules.is_terminal(game) or ui.screen in ("idle", "setup"):
            if r % 4 == 3:  # computer players at the table
                return self.joystick_game(3 + r % 2, 1 + r % 2, rules.COMPUTER_LEVELS[r % 2], LANGUAGES[r % 6],
                                          rules.VARIANTS[r % 2], (None, 0, 1, 2)[r % 4])
            if host is None:
                return self._press("a")  # the joystick through set-up
            return self._send(host, "new_game", players=3 + r % 2, variant=rules.VARIANTS[r % 2],
                              first_giver=(None, 0, 1, 2)[r % 4])
        if self.diverged and host is not None:
            return self._send(host, "abandon")
        if r == 11:  # the giver's colour changes hands mid-round: the issue's leaks' way
            return self.hand_the_givers_colour_over((game.round + len(game.pawns)) % PHONES)
        if game.phase == "choose_target":
            return self._the_holder_chooses(r)
        seat = rules.current_player(game)
        if is_computer(ui.seating.holder(seat)):  # its move comes at a person's pace
            return self.wait(PACE_S)
        if seat in ui.seating.taken:
            d = self._at(seat)
            if d is None:
                return self._reconnect(seat)
            if game.phase in ("clue1", "clue2"):
                if game.phase == "clue2" and r % 3 == 0:
                    return self._send(d, "pass")
                if r % 3 == 1:  # typed on the phone: every phone and /panel show its words
                    return self._send(d, "clue", text="sunset" if game.phase == "clue1" else "ripe peach", lang="en")
                return self._send(d, "clue")
            taken = {p.cell for p in game.pawns}
            return self._send(d, "place", cell=str(next(c for c in ALL_CELLS[37 * r:] + ALL_CELLS if c not in taken)))
        if game.phase in ("guess1", "guess2") and (ui.pending is not None or game.occupied(ui.cursor) or r % 4 == 0):
            return self._press(("right", "down", "left", "up")[r % 4])
        return self._press("a")

    def _reconnect(self, seat: int) -> None:
        """The phone of `seat` is not connected: it comes back (with its token)."""
        token = next((t for t, s in self.seats.items() if s == seat), None)
        d = next((d for d, device in enumerate(self.devices) if device.token_id == token), None)
        if d is not None:
            self.connect(d)

    def _the_holder_chooses(self, r: int) -> None:
        """The round's holder chooses: the one input that differs between the worlds (another
        card cell, another free cell, the joystick's finger another way)."""
        ui = self.worlds[0].app.ui
        if isinstance(self.holder, str) and is_computer(self.holder):
            return self.wait(PACE_S)
        if self.holder == PANEL:
            if ui.screen == "handoff":
                return self._step(lambda world, i: (_press(world, "a", self.t), _press(world, "a", self.t)))
            if r % 2:
                return self._step(lambda world, i: _press(world, ("right", "down")[i], self.t))
            return self._press("a")
        holding = self._holding()
        if not holding:
            return self._reconnect(self.worlds[0].app.game.giver)
        d = next(iter(holding))

        def cell(world, i):
            card = (self.devices[d].conns[i].last_view["you"] or {}).get("card")
            return {"cell": card[(r + i) % 4] if card else CELLS[(r + i) % len(CELLS)]}

        self._send(d, "choose", per_world=cell)

    # --- the joystick and time -----------------------------------------------------------------------

    def press(self, button: str) -> None:
        self._press(button)

    def joystick_game(self, players: int, computers: int, level: str, lang: str, variant: str, first) -> None:
        """The joystick through set-up (from the idle board or set-up) to a game of `players` with
        `computers` computer players of `level` writing in `lang`, started on GO (refused when
        phones hold the seats they would take)."""
        wanted = {"players": players, "computers": min(computers, players - 1), "level": level, "lang": lang,
                  "variant": variant, "first_giver": first}
        if self._setup() is None:
            self._press("a")
        if self._setup() is None:
            return
        while self._setup().item > 0:
            self._press("up")
        for item in SETUP_ITEMS[:-1]:
            if SETUP_ITEMS[self._setup().item] != item:
                continue  # the computer players' own items, skipped without any
            for _ in range(12):
                value = getattr(self._setup(), item)
                if value == wanted[item]:
                    break
                self._press("left" if item in ("players", "computers") and value > wanted[item] else "right")
            self._press("down")
        self._press("a")

    def _setup(self):
        """Set-up's choices while the panel shows set-up, else None."""
        ui = self.worlds[0].app.ui
        return ui.setup if ui.screen == "setup" else None

    def hold_start(self) -> None:
        """Start held: the host menu over a game (or nothing between games)."""
        self._step(lambda world, i: world.app.events.put(InputEvent("start", PRESS, self.t)),
                   ticks=int((controller.HOST_MENU_HOLD_S + 0.2) / TICK_S))
        self._step(lambda world, i: world.app.events.put(InputEvent("start", RELEASE, self.t)))

    def host_item(self, item: str) -> None:
        """The host menu opened, and one of its items chosen with the joystick: the brightness
        menu, a new game's or power-off's question, or back to the game."""
        self.hold_start()
        if self.worlds[0].app.ui.screen != "host":
            return
        for _ in range(HOST_MENU.index(item)):
            self._press("down")
        self._press("a")

    def abandon_by_joystick(self) -> None:
        """The host menu's new game, confirmed: the game abandoned, set-up again."""
        self.host_item("new_game")
        self._press("right")
        self._press("a")

    def quit_key(self) -> None:
        """The simulator's q mid-game: the quit question (over the secret screen too); a second
        q quits (the console then starts again)."""
        self._press(QUIT)

    def wait(self, seconds: float) -> None:
        self._step(lambda world, i: None, ticks=int(seconds / TICK_S))

    def restart(self) -> None:
        """The power goes and comes back: each console anew on its store; every phone must reconnect."""
        for i in range(2):
            self._restart_world(i)
        self._step(lambda world, i: None)

    def _restart_world(self, i: int) -> None:
        """A console anew on its store: every phone's connection to it is gone."""
        for device in self.devices:
            for conn in device.conns or ():
                conn.close()
            device.conns = None
        self.worlds[i].restart(self.t)

    def the_last_reveal(self, variant: str, tied: bool) -> None:
        """Both worlds put the same stored game on, at the reveal of its last regular round: with
        two players tied the next round is a tie-break (its secret differs as any other), else
        the game is over."""
        record, game = last_reveal(variant, tied)

        def act(world, i):
            def put(store):
                store.abandon()
                store.start_game(action_to_json(record[0]))
                for action in record[1:]:
                    store.append(action_to_json(action))
                ui = controller.screen_for(game, replace(world.app.ui, menu_return=None), self.t)
                ui = replace(ui, seating=seat_computers(game, ui.seating))  # the last game's computers leave
                world.app.put_on(game, replace(ui, since=self.t - REVEAL_SCORES_S - 1), self.t - 1)
            world.app.events.put(Chore(put))

        self._step(act)

    def teardown(self) -> None:
        for device in self.devices:
            for conn in device.conns or ():
                conn.close()
        for world in self.worlds:
            world.stop()


def _differing(a: list[tuple], b: list[tuple]) -> str:
    """Where two lists of computer guessers' moves differ: the first move's seat, the fields of
    the states given that differ, and the actions."""
    for (seat, seen, action), (seat_b, seen_b, action_b) in zip(a, b):
        fields = [f.name for f in dataclasses.fields(seen) if getattr(seen, f.name) != getattr(seen_b, f.name)]
        if fields or (seat, action) != (seat_b, action_b):
            return (f"seat {seat} and {seat_b}, the state's {', '.join(fields) or 'nothing'}, "
                    f"moves {action} and {action_b}")
    return f"{len(a)} moves and {len(b)}"


def _shown(public: dict) -> bool:
    """Whether a public view shows a round's target (or the game's end)."""
    game = public["game"]
    return game is not None and (game["target"] is not None or game["phase"] == "game_over")


def machine_settings(examples: int, steps: int = 30, shrink: bool = True) -> settings:
    """Sized for CI (derandomized, no shrinking: a failure prints its steps as found);
    HUES_SECRET_MACHINE=N: N random examples, a failure shrunk (unless `shrink` is off)."""
    phases = (Phase.generate, Phase.shrink) if EXAMPLES and shrink else (Phase.generate,)
    return settings(max_examples=EXAMPLES or examples, stateful_step_count=steps, deadline=None,
                    derandomize=not EXAMPLES, database=None, phases=phases,
                    suppress_health_check=list(HealthCheck))


WANTED = ({("screen", name) for name in SCREENS} | {("phase", name) for name in rules.PHASES}
          | {("menu over", name) for name in ("handoff", "secret", "play", "reveal")}
          | {("holder", "panel"), ("holder", "phone"), ("tie-break", "choose_target")}
          | {("dealt again", "to the panel"), ("dealt again", "to a phone")})


def test_no_connection_but_the_holders_and_no_panel_frame_depends_on_the_secret():
    run_state_machine_as_test(TwoConsoles, settings=machine_settings(5))


def tour(machine: TwoConsoles) -> None:
    """One party through every screen and phase by the machine's own steps (the random runs
    reach them by chance; this reaches each in every CI run): a joystick giver's hand-off and
    secret screen under each menu, a guest trying the giver's colour, the host handing it to a
    phone, back to the joystick and to another phone before the target is chosen, the giver's
    token on a second phone, the giver's colour to a guesser's phone after it, a restart
    mid-round, a reveal, a tie-break and a game's end."""
    def until(done) -> None:
        _until(machine, done)

    machine.a_table(seated=0, guests=0, players=3, variant="cards", first=None)  # idle, set-up
    machine.abandon_by_joystick()
    machine.a_table(seated=2, guests=2, players=3, variant="cards", first=2)  # red, orange on phones
    for menu in (machine.hold_start, machine.quit_key):  # over the hand-off
        menu()
        machine.press("b")
    machine.press("a")
    machine.press("a")  # the secret screen
    for menu in (machine.hold_start, machine.quit_key, lambda: machine.host_item("brightness")):
        menu()
        machine.press("b")
    machine.take(2, 2)  # refused: yellow is the joystick's
    machine.hand_the_givers_colour_over(2)  # dealt again, to that phone
    machine.free(0, 2)  # back to the joystick: dealt again, to the panel
    machine.hand_the_givers_colour_over(3)  # and to another phone
    until(lambda app: app.game.phase == "clue1")
    machine.move_token(3, 2)  # the giver's token on a second phone
    machine.hand_the_givers_colour_over(1)  # orange's phone takes the giver's colour after the choice
    until(lambda app: app.game.phase == "guess1")
    machine._one_move(10)  # a menu over the guesses
    machine.restart()
    for d in range(PHONES):
        machine.connect(d)
    until(lambda app: app.ui.screen == "reveal")
    machine._one_move(10)  # a menu over the reveal
    machine.the_last_reveal("cards", tied=True)
    until(lambda app: app.ui.screen == "tiebreak")
    until(lambda app: app.game.phase == "round_over")
    machine.the_last_reveal("free", tied=False)
    until(lambda app: app.ui.screen == "game_over")


def _until(machine: TwoConsoles, done, limit: int = 80) -> None:
    """The table plays on by the machine's own moves until `done(app)` (world a's)."""
    for k in range(limit):
        if done(machine.worlds[0].app):
            return
        machine._one_move(k % 10)  # no menu (10), no hand-over (11): those are asked for here
    raise AssertionError(f"the tour never got there (screen {machine.worlds[0].app.ui.screen})")


def computers_tour(machine: TwoConsoles) -> None:
    """Parties with computer players, by the machine's own steps (each game's first round: after
    a reveal the worlds' scores differ and the host abandons the game): two phones and two
    computer players (set-up's BOTS on the joystick), a computer giving (its target, its clues
    or pass) while a guest tries its colour and the host frees it, a menu over its turn and a
    restart mid-round; a phone giving to computer guessers of the other level and language; the
    joystick giving in the free variant (the panel holds the secret) to a computer guesser."""
    machine.a_table(seated=2, guests=1, players=4, variant="cards", first=2, computers=2, level="expert", lang="en")
    assert machine.worlds[0].app.ui.seating.holder(3) == computer_holder(3)
    machine.take(2, 2)  # refused: a computer's colour
    machine.hand_the_givers_colour_over(2)  # the computer's colour stays the computer's
    _until(machine, lambda app: app.game.phase == "clue1")
    machine._one_move(10)  # a menu over the computer's turn: it waits
    machine.wait(PACE_S)
    _until(machine, lambda app: app.game.phase == "guess1")
    machine.restart()
    for d in range(3):
        machine.connect(d)
    _until(machine, lambda app: app.ui.screen == "reveal")
    for first, computers, level, lang in ((0, 2, "child", "it"), (2, 1, "child", "vi")):
        machine._send(machine._host(), "abandon")
        machine.joystick_game(4, computers, level, lang, variant="free", first=first)
        assert machine.worlds[0].app.game.computer(3) == (level, lang)
        _until(machine, lambda app: app.ui.screen == "reveal")


def take_the_tour(way=None) -> None:
    machine = TwoConsoles()
    try:
        (way or tour)(machine)
    finally:
        machine.teardown()


def test_a_tour_of_every_screen_and_phase_keeps_the_secret():
    REACHED.clear()
    take_the_tour()
    assert WANTED <= REACHED, f"the tour never reached {sorted(WANTED - REACHED, key=str)}"


COMPUTERS_WANTED = ({("computer", "giver", phase) for phase in ("choose_target", "clue1", "clue2")}
                    | {("computer", "guesser", phase) for phase in ("guess1", "guess2")}
                    | {("holder", "computer"), ("holder", "panel"), ("holder", "phone")})


def test_computer_players_keep_the_secret_and_guess_alike_in_both_worlds():
    """Every computer guesser is given the same state in both worlds (and so moves alike); a
    computer giver holds the round's secret alone, and nothing of it reaches a phone or /panel."""
    REACHED.clear()
    take_the_tour(computers_tour)
    assert COMPUTERS_WANTED <= REACHED, f"the tour never reached {sorted(COMPUTERS_WANTED - REACHED, key=str)}"


# --- four ways to break the binding, each found by the machine -----------------------------------


def the_views_follow_the_seat(monkeypatch) -> None:
    """The card and the target go to whoever sits in the giver's colour (the old seat lock's
    design, without its lock)."""
    from console.web import phones
    from console.web.views import seat_view

    def view_text(self, seat, host, digest) -> str:
        snap = self.hub.snapshot
        game = snap.game
        digest = snap.ui.seating.secret if game is not None and seat == game.giver else None
        return json.dumps(seat_view(game, snap.ui, seat, digest=digest, host=host,
                                    taken=snap.ui.seating.taken, open_seats=(), host_pin=False))

    monkeypatch.setattr(phones.PhoneRoom, "view_text", view_text)


def the_binding_follows_the_seat(monkeypatch) -> None:
    """A seat that changes hands takes the round's secret along, whatever the phase."""
    from console.game.seating import dealt, occupant
    from console.play import table

    def rebound(game, ui, t):
        if game is None or rules.is_terminal(game) or ui.seating.secret == occupant(game, ui.seating):
            return None
        return game, replace(ui, seating=dealt(game, ui.seating)), ()

    monkeypatch.setattr(table, "rebound", rebound)


def the_panel_stream_shows_the_secret_screen(monkeypatch) -> None:
    """/panel draws the frame as the panel does, the joystick giver's card included."""
    from console.web import panel

    monkeypatch.setattr(panel, "shows_secret", lambda ui: False)


def a_computer_guesser_given_the_secret(monkeypatch) -> None:
    """A computer guesser decides on the whole state, the round's card and target included (its
    move need not change for the machine to find it: what it was given differs)."""
    from console.play import computers

    monkeypatch.setattr(computers, "without_secret", lambda game: game)


@pytest.mark.parametrize("mutation, way", [(the_views_follow_the_seat, tour), (the_binding_follows_the_seat, tour),
                                           (the_panel_stream_shows_the_secret_screen, tour),
                                           (a_computer_guesser_given_the_secret, computers_tour)])
def test_the_machine_finds_a_broken_binding(monkeypatch, mutation, way):
    """Each break is found as the invariant's failure (not any other error of the run): in CI
    by a tour, the CI's run's first part (seconds; the random examples would find two of the
    first three after some examples, tens of seconds); with HUES_SECRET_MACHINE=N by the random
    examples alone, up to N of them (the campaign's figure: how many it took)."""
    mutation(monkeypatch)
    with pytest.raises(AssertionError) as found:
        if EXAMPLES:
            run_state_machine_as_test(TwoConsoles, settings=machine_settings(EXAMPLES, shrink=False))
        else:
            take_the_tour(way)
    assert any(sign in str(found.value) for sign in ("was sent the secret", "/panel showed",
                                                     "a computer guesser was given"))
