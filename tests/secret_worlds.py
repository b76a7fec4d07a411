"""Two consoles that differ only in the round's secret, driven in lockstep: the state machine's
worlds (tests/play/test_secret_machine.py).

Each world is the real app loop (`ConsoleApp.tick` on a virtual clock shared by both) with the
real web companion (uvicorn in its thread, the phones' websocket) over a store on a fakeredis
server of its own, so a restart is a new console on the same store. Phones are websocket clients.
The worlds deal different cards (each deck seed comes from a generator of its own; every other
random choice, the first giver included, is the same) and their holder points and chooses
differently; everything else they are given is the same. So anything that differs between what
the worlds send a phone that does not hold the round's secret, or what their /panel shows, is
the secret leaking.

Every message a step causes is collected before the next step: one phone sends at a time, and
each phone is then sent a line that is not JSON, whose refusal comes after everything queued for
it before (the server handles a connection's messages in order, and the hub's wake-ups for a
tick are queued before the tick returns).

Computer players sit where a game names them and think at once, in the loop's thread
(`TwinThinker`, so the worlds stay in lockstep on the virtual clock). Each move worked out is
written down, with the state the computer was given, for the machine to compare the guessers'.
A computer giver's words are the one thing of the secret a giver shares on purpose: as a phone
giver types the same text in both worlds, world b's computer giver says what world a's said in
the same public state (its own target chosen from its own card all the same).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import socket
from concurrent.futures import Future
from typing import Any, NamedTuple

import fakeredis
from websockets.sync.client import ClientConnection, connect

from console.commands.wiring import attach_web, build_io
from console.game import rules
from console.game.board import ALL_CELLS
from console.play.app import ConsoleApp
from console.play.computers import Computers
from console.store.games import GameStore
from console.store.writer import STORED_BYTES
from console.web.limits import LIMITS
from console.web.pacing import DevicePacers
from console.web.panel import PanelStream
from console.web.views import public_view
from hal.inputs.events import PRESS, RELEASE, InputEvent
from tests.fakes import InlineThinker
from tests.gameplay import play_quiet_rounds, play_round
from tests.phones import web_config

WAIT_S = 5.0
CONFIG = web_config()
SYNC = "sync"  # not JSON: refused in order, behind whatever the phone was sent before
# A phone whose token no longer holds a seat waits for the code as long as the machine runs: the
# waiting room's sweep runs on the server's wall clock, so its closing would land at another step
# in each world (the timeout is the attack tests' to check, tests/web/test_web_attacks.py)
UNHURRIED = dataclasses.replace(LIMITS, admit_s=math.inf)


class TwinRandom(random.Random):
    """The console's random source: the same as the other world's but for the deck seeds (the
    only draw of 2**31), which come from a generator of this world's own."""

    def __init__(self, deck_seed: int) -> None:
        super().__init__(1)
        self.decks = random.Random(deck_seed)

    def randrange(self, start, stop=None, step=1):  # type: ignore[override]
        if stop is None and start == 2**31:
            return self.decks.randrange(start)
        return super().randrange(start, stop, step)


class FastClock:
    """The phones' pacing clock: a second passes at every reading, so no test phone is slowed
    (on the wall clock, a phone asked for a sync at every step went past the rate in a long game,
    and its sync was refused as too fast: what the worlds sent then depended on the machine's speed)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


class Phone:
    """One connection of a phone to one world's server."""

    def __init__(self, url: str) -> None:
        self.ws: ClientConnection = connect(url.replace("http://", "ws://") + "/ws", origin=url,
                                            open_timeout=WAIT_S, max_queue=None).__enter__()
        # each sync is a small write right after another: without this, Nagle holds it back for
        # the delayed ACK (40 ms on Linux loopback), most of a step's time
        self.ws.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.n = 0
        self.last_view: dict | None = None

    def send(self, t: str, **fields: Any) -> None:
        self.n += 1
        self.ws.send(json.dumps({"t": t, "n": self.n, **fields}))

    def ask(self) -> None:
        """Ask for the line that follows everything sent so far (every phone first, then each
        phone's `received`: the round trips overlap)."""
        self.ws.send(SYNC)

    def received(self) -> list[dict]:
        """Everything sent to this phone before the line `ask` asked for."""
        out = []
        while True:
            message = json.loads(self.ws.recv(timeout=WAIT_S))
            if message["t"] == "refused" and message["why"] == "not a JSON message" and message["n"] is None:
                return out
            if message["t"] == "view":
                self.last_view = message
            out.append(message)

    def close(self) -> None:
        self.ws.close()


class Move(NamedTuple):
    """A computer player's move as worked out: its seat, the state it was given, its action."""

    seat: int
    seen: rules.GameState
    action: rules.Action | None


class TwinThinker(InlineThinker):
    """A world's computer players' thinker: each piece of work at once (the tick that asks for it);
    a move (asked with the state the computer is given, its seat, level and language) written
    down in `moves`. `spoken` is shared by the worlds: the first writes its givers' clues and
    passes there by public state and seat; in the `second`, a giver's clue or pass is the
    first's in the same public state, when it spoke in one (else its own, which then shows)."""

    def __init__(self, moves: list[Move], spoken: dict, second: bool) -> None:
        self.moves, self.spoken, self.second = moves, spoken, second

    def submit(self, fn, /, *args) -> Future:
        if not (args and isinstance(args[0], rules.GameState)):  # the knowledge loading, a game alone
            return super().submit(fn, *args)
        seen, seat = args[:2]

        def thought():
            action = fn(*args)
            if isinstance(action, (rules.Clue, rules.SkipClue)):
                key = (seat, seen.round, seen.tied, seen.phase, seen.pawns, seen.clues, seen.scores)  # all public
                if not self.second:
                    self.spoken[key] = action
                action = self.spoken.get(key, action)
            self.moves.append(Move(seat, seen, action))
            return action

        return super().submit(thought)


class World:
    """One console; `restart()` makes a new one on the same store (the phones must reconnect).
    The second world is given the first's `spoken` (see `TwinThinker`)."""

    def __init__(self, name: str, deck_seed: int, spoken: dict | None = None) -> None:
        self.name, self.server, self.rng = name, fakeredis.FakeServer(), TwinRandom(deck_seed)
        self.app: ConsoleApp | None = None
        self.frames: list = []  # what /panel streamed at each tick of the step
        self.moves: list[Move] = []  # the computer players' moves worked out at each tick of the step
        self.spoken = {} if spoken is None else spoken  # the first world's givers' clues (shared)
        self.second = spoken is not None

    def start(self, now: float) -> None:
        config = CONFIG
        store = GameStore("memory://", owner=self.name, client=fakeredis.FakeRedis(
            server=self.server, decode_responses=True, encoding_errors=STORED_BYTES))
        stage, driver, events, sources = build_io(config, "sim-headless", lambda events: [])
        self.now = now
        thinker = TwinThinker(self.moves, self.spoken, self.second)
        self.app = ConsoleApp(stage, driver, events, sources, store, colors=config.players.colors, rng=self.rng,
                              computers=Computers(events, thinker))
        self.web = attach_web(config, self.app, limits=UNHURRIED)
        self.app.room_codes = lambda: "ACEF"  # the same code in both worlds (it is not the secret)
        clock = self.web.room.clock = FastClock()
        self.web.room.pacers = DevicePacers(clock, local=self.web.room.limits.local)  # not the wall clock's
        self.web.room.pause = _no_pause
        self.stream = PanelStream(self.web.hub, self.app.stage)  # /panel/ws's own frame and hint
        self.app.start(now)

    @property
    def url(self) -> str:
        return self.web.url

    def tick(self, now: float) -> bool:
        """One frame of the loop; whether it published a new state (the phones are woken)."""
        if not self.app.running:
            return False
        version = self.web.hub.snapshot.version
        self.now = now
        self.app.tick(now)
        self.frames.append((self.stream.frame_message(spectator=True), self.stream.hint_message()))
        return self.web.hub.snapshot.version != version

    def public(self) -> dict:
        snapshot = self.web.hub.snapshot
        return public_view(snapshot.game, snapshot.ui)

    def stop(self) -> None:
        if self.app is None:
            return
        for source in self.app.sources:
            source.close()
        self.app.close()
        self.app = None

    def restart(self, now: float) -> None:
        self.stop()
        self.start(now)


async def _no_pause(seconds: float) -> None:
    return None


class Device:
    """A phone (its storage: the token) with a connection to each world, or none."""

    def __init__(self) -> None:
        self.conns: list[Phone] | None = None
        self.tokens: list[str] | None = None  # this device's token in each world
        self.token_id: int | None = None  # which token it is, in this file's reckoning

    def seat(self) -> int | None:
        view = self.conns[0].last_view if self.conns else None
        return None if view is None else view["seat"]

    def host(self) -> bool:
        view = self.conns[0].last_view if self.conns else None
        return bool(view and view["host"])


def normalised(messages: list[dict], tokens: dict[str, int]) -> list[dict]:
    """A world's messages with its random tokens named by their token id."""
    out = []
    for message in messages:
        if "token" in message:
            message = dict(message, token=tokens.get(message["token"]))
        out.append(message)
    return out


def press(world: World, button: str, t: float) -> None:
    """A press of `button` as a terminal key gives it (its release at once)."""
    world.app.events.put(InputEvent(button, PRESS, t))
    world.app.events.put(InputEvent(button, RELEASE, t))


def last_reveal(variant: str, tied: bool):
    """A 3-player game at its last regular round's reveal, and its record: orange and yellow
    tied (a tie-break comes next), or orange ahead (the game is over next)."""
    record: list = []
    real = rules.apply

    def apply(state, action):
        record.append(action)
        return real(state, action)

    rules.apply = apply
    try:
        state = rules.apply(None, rules.NewGame(players=3, seed=5, first_giver=0, variant=variant))
        target = rules.legal_actions(state)[0].cell
        near = [c for c in ALL_CELLS if max(abs(c.row - target.row), abs(c.col - target.col)) == 2]
        first = {1: near[0], 2: near[1]} if tied else {1: near[0]}
        state = play_quiet_rounds(rules.apply(play_round(state, target=target, first=first), rules.Next()), 4)
        state = play_round(state)
    finally:
        rules.apply = real
    return record, state
