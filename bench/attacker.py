"""One hostile guest, as a process of its own: what `bench.attacks` and the attack tests run
against the phones' server. Each attack comes from several source addresses of this machine
(127.0.0.2 to 127.0.0.7 on loopback: six devices, as one guest with a few addresses would be)
and keeps at it until the process is stopped, printing what it holds twice a second as a JSON
line: {"attack", "held" (connections open now), "opened", "refused" (closed or refused by the
server), "sent", "answers", "refusals" (the server's refusals by path), "seconds"}.

  python -m bench.attacker ATTACK URL [CODE [GAME]]     (in the checkout)

It imports nothing of the console, so it starts fast and shares nothing with the server.
"""

from __future__ import annotations

import asyncio
import json
import random
import resource
import sys
import time
from typing import Awaitable, Callable

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus, WebSocketException

SOURCES = tuple(f"127.0.0.{n}" for n in range(2, 8))
RETRY_S = 0.05  # after a refusal: a guest hammering the door, not a busy loop in this process


class Stats:
    def __init__(self, attack: str) -> None:
        self.attack = attack
        self.held = self.opened = self.refused = self.sent = self.answers = 0
        self.refusals: dict[str, int] = {}  # the server's {"t": "refused"} answers, by path
        self.started = time.monotonic()

    def line(self) -> str:
        return json.dumps({"attack": self.attack, "held": self.held, "opened": self.opened,
                           "refused": self.refused, "sent": self.sent, "answers": self.answers,
                           "refusals": self.refusals, "seconds": round(time.monotonic() - self.started, 3)})


class Attacker:
    def __init__(self, attack: str, url: str, code: str, game: str) -> None:
        self.url, self.code, self.game = url, code, game
        self.host, self.port = url.split("//", 1)[1].rsplit(":", 1)
        self.stats = Stats(attack)

    # --- connections -------------------------------------------------------------------------

    async def websocket(self, path: str, source: str, headers: dict | None = None) -> ClientConnection | None:
        try:
            ws = await connect(f"ws://{self.host}:{self.port}{path}", origin=self.url, open_timeout=5,
                               local_addr=(source, 0), additional_headers=headers, max_queue=None,
                               compression=None, ping_interval=None)
        except (OSError, InvalidStatus, WebSocketException, asyncio.TimeoutError):
            self.stats.refused += 1
            await asyncio.sleep(RETRY_S)
            return None
        self.stats.opened += 1
        return ws

    async def held(self, path: str, source: str, use: Callable[[ClientConnection], Awaitable[None]],
                   headers: dict | None = None) -> None:
        """A websocket on `path`, used by `use` and opened again whenever the server closes it."""
        while True:
            ws = await self.websocket(path, source, headers)
            if ws is None:
                continue
            self.stats.held += 1
            try:
                await use(ws)
            except (OSError, WebSocketException):
                pass
            finally:
                self.stats.held -= 1
                self.stats.refused += 1
                await ws.close()

    async def tcp(self, source: str, use: Callable[[asyncio.StreamWriter], Awaitable[None]]) -> None:
        """A TCP connection used by `use`, opened again whenever the server closes it."""
        while True:
            try:
                reader, writer = await asyncio.open_connection(self.host, int(self.port), local_addr=(source, 0))
            except OSError:
                self.stats.refused += 1
                await asyncio.sleep(RETRY_S)
                continue
            self.stats.opened += 1
            self.stats.held += 1
            using, closed = asyncio.ensure_future(use(writer)), asyncio.ensure_future(reader.read())
            try:  # read() ends when the server closes the connection
                await asyncio.wait([using, closed], return_when=asyncio.FIRST_COMPLETED)
            except OSError:
                pass
            finally:
                using.cancel()
                closed.cancel()
                self.stats.held -= 1
                self.stats.refused += 1
                writer.close()
                await asyncio.sleep(RETRY_S)

    # --- what is done on a connection ----------------------------------------------------------

    async def drain(self, ws: ClientConnection) -> None:
        async for message in ws:
            self.answer(ws, message)

    def answer(self, ws: ClientConnection, message: str | bytes) -> None:
        self.stats.answers += 1
        if isinstance(message, str) and message.startswith('{"t": "refused"'):
            path = ws.request.path if ws.request is not None else "?"
            self.stats.refusals[path] = self.stats.refusals.get(path, 0) + 1

    async def junk(self, ws: ClientConnection) -> None:
        """Sends junk as fast as the socket takes it, reading every answer."""
        reading = asyncio.ensure_future(self.drain(ws))
        try:
            while not reading.done():
                for _ in range(1000):  # in one go: the server reads them in chunks as large as it takes
                    await ws.send("junk")
                self.stats.sent += 1000
                await asyncio.sleep(0)  # send() does not wait while the socket takes it all: let the others go
        finally:
            reading.cancel()

    async def asking(self, ws: ClientConnection, messages: Callable[[int], dict], n: int = 0) -> None:
        """Sends messages(n) for n = n + 1, n + 2, ..., each once an answer to the last one came."""
        while True:
            n += 1
            await ws.send(json.dumps({"n": n, **messages(n)}))
            self.stats.sent += 1
            self.answer(ws, await ws.recv())

    # --- the attacks ---------------------------------------------------------------------------

    def flood(self) -> list[Awaitable]:
        """Junk on every websocket: /panel/ws, /sim/ws, /ws and a replay's."""
        paths = ["/panel/ws", "/sim/ws", "/ws", "/ws", f"/replay/{self.game}/ws"]
        return [self.held(path, source, self.junk) for source in SOURCES for path in paths]

    def unadmitted(self) -> list[Awaitable]:
        """/ws connections that never give the room code, as many as the server lets in."""
        return [self.held("/ws", source, self.drain) for source in SOURCES for _ in range(8)]

    def idle(self) -> list[Awaitable]:
        """1,100 TCP connections that send nothing."""
        return [self.tcp(SOURCES[i % len(SOURCES)], self.silent) for i in range(1100)]

    def slowloris(self) -> list[Awaitable]:
        """Connections that send a request's headers a byte at a time, never finishing."""
        return [self.tcp(source, self.slow_headers) for source in SOURCES for _ in range(20)]

    def viewers(self) -> list[Awaitable]:
        """/panel viewers, as many as the server lets in, reading every frame."""
        return [self.held("/panel/ws", source, self.drain) for source in SOURCES for _ in range(4)]

    def wrong_codes(self) -> list[Awaitable]:
        """Wrong room codes as fast as the answers come."""
        guess = lambda n: {"t": "join", "code": "".join(random.choice("ACEFHKPRTXY") for _ in range(4))}
        return [self.held("/ws", source, lambda ws: self.asking(ws, guess)) for source in SOURCES for _ in range(3)]

    def forwarded(self) -> list[Awaitable]:
        """Wrong codes from one address posing as six with X-Forwarded-For."""
        guess = lambda n: {"t": "join", "code": "XXXX"}
        return [self.held("/ws", SOURCES[0], lambda ws: self.asking(ws, guess), {"X-Forwarded-For": f"10.6.6.{i}"})
                for i in range(6)]

    def seat_churn(self) -> list[Awaitable]:
        """Six guests with the right code taking and leaving a seat as fast as they may."""
        async def churn(ws: ClientConnection, seat: int) -> None:
            await ws.send(json.dumps({"t": "join", "n": 1, "code": self.code}))
            await self.asking(ws, lambda n: {"t": "take", "seat": seat} if n % 2 == 0 else {"t": "leave"}, n=1)

        return [self.held("/ws", source, lambda ws, seat=4 + i: churn(ws, seat)) for i, source in enumerate(SOURCES)]

    def huge_numbers(self) -> list[Awaitable]:
        """Replay pages asking for the moment 10**400, as fast as the answers come."""
        huge = int("1" + "0" * 400)
        return [self.held(f"/replay/{self.game}/ws", source, lambda ws: self.asking(ws, lambda n: {"t": huge}))
                for source in SOURCES]

    async def silent(self, writer: asyncio.StreamWriter) -> None:
        await asyncio.Event().wait()

    async def slow_headers(self, writer: asyncio.StreamWriter) -> None:
        writer.write(f"GET / HTTP/1.1\r\nHost: {self.host}\r\n".encode())
        while True:
            await asyncio.sleep(0.5)
            writer.write(b"X")
            await writer.drain()

    async def run(self) -> None:
        tasks = [asyncio.ensure_future(attack) for attack in getattr(self, self.stats.attack.replace("-", "_"))()]
        while True:
            print(self.stats.line(), flush=True)
            await asyncio.sleep(0.5)
            if any(task.done() and task.exception() for task in tasks):
                raise next(task.exception() for task in tasks if task.done() and task.exception())


ATTACKS = ("flood", "unadmitted", "idle", "slowloris", "viewers", "wrong-codes", "forwarded", "seat-churn",
           "huge-numbers")


def main(argv: list[str]) -> None:
    attack, url, code, game = (argv + ["", "", "", "last"])[:4]
    if attack not in ATTACKS:
        sys.exit(f"attacker: {attack!r} is not one of {', '.join(ATTACKS)}")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096) if hard > 0 else 4096, hard))
    try:
        asyncio.run(Attacker(attack, url, code, game).run())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main(sys.argv[1:])
