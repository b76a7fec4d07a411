"""Phones in a process of their own, tapping the console beside a minimal Starlette broadcast (the
anchor), each server in a process of its own too: the lab's tap to every phone (`phone_figures`)
and its quota run's phones (`bench.budget`). Its children are started with
`python -m bench.phones ROLE ...` in the checkout (ROLE: phones, anchor; `bench.processes.Phones`
starts the phones'). Beside the times, `bench.opcodes` counts the Python a tap runs in each
server: what the times follow, without the machine's noise.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import threading
import time

from bench.processes import WAIT_S, Child, Phones, usable_cpus


def run_phones(spec: dict) -> None:
    """In the phones' process: join each server (the first phone in the guesser's seat), tap;
    print the latencies, the first server's as "latencies_ms", a second one's as "beside_ms"."""
    first, *beside = asyncio.run(_phones(spec))
    print(json.dumps({"latencies_ms": first, "beside_ms": beside[0] if beside else []}), flush=True)
    os._exit(0)


class _PhoneGroup:
    """One server's N phones in the phones' process, and when each saw the cell last tapped."""

    def __init__(self, url: str, anchor: bool) -> None:
        self.url, self.anchor = url, anchor
        self.sockets: list = []
        self.readers: list[asyncio.Task] = []  # one a phone, once they have joined
        self.arrived: list[dict] = []
        self.done = asyncio.Event()
        self.wanted: str | None = None
        self.counter = 0  # the messages' `n`, one count for all of the group's phones

    async def join(self, n: int, code: str, seats: list[int]) -> None:
        """One guest after another, each in before the next (the waiting room is smaller than 32);
        the others watch without a seat."""
        from websockets.asyncio.client import connect

        for i in range(n):
            ws = await connect(self.url.replace("http://", "ws://") + ("/" if self.anchor else "/ws"),
                               origin=self.url, compression=None, open_timeout=WAIT_S,
                               local_addr=(f"127.0.0.{2 + i}", 0))
            self.sockets.append(ws)
            if not self.anchor:
                await self.send(ws, t="join", code=code)
                if i < len(seats):
                    await self.send(ws, t="take", seat=seats[i])
                await asyncio.wait_for(_until_in(ws, i < len(seats)), WAIT_S)
        self.arrived = [{} for _ in range(n)]
        self.readers = [asyncio.create_task(self._read(i, ws)) for i, ws in enumerate(self.sockets)]

    async def send(self, ws, **message) -> None:
        self.counter += 1
        await ws.send(json.dumps({"n": self.counter, **message}))

    async def _read(self, i: int, ws) -> None:
        async for text in ws:
            cell = cursor_in(text)
            if cell is not None and cell == self.wanted and cell not in self.arrived[i]:
                self.arrived[i][cell] = time.perf_counter()
                if all(cell in a for a in self.arrived):
                    self.done.set()

    async def tap(self, cell: str, i: int) -> list[float]:
        """The first phone taps `cell` (tap number `i`): ms until each phone saw it."""
        for a in self.arrived:
            a.clear()
        self.wanted, sent = cell, time.perf_counter()
        self.done.clear()
        if self.anchor:
            await self.sockets[0].send(json.dumps({"cell": cell}))
        else:
            await self.send(self.sockets[0], t="cursor", cell=cell)
        try:
            await asyncio.wait_for(self.done.wait(), WAIT_S)
        except asyncio.TimeoutError:
            raise RuntimeError(f"tap {i}: not every phone of {self.url} saw it") from None
        return [(a[cell] - sent) * 1000 for a in self.arrived]

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        for ws in self.sockets:
            await ws.close()


async def _phones(spec: dict) -> list[list[float]]:
    """Each server's phones tap in turn, each server every `every_s`; which goes first alternates
    from tap to tap. Measured so, side by side, both meet the machine in the same state: taken
    one after the other for 1.25 s each, this machine's drift went into the ratio, and runs of 4
    rounds of the same code gave 1.08 to 1.68. Two anchors side by side so give 1.006 (1 and 10
    phones, 8 rounds)."""
    groups = [_PhoneGroup(server["url"], server["anchor"]) for server in spec["servers"]]
    for group, server in zip(groups, spec["servers"]):
        await group.join(spec["n"], server["code"], spec["seats"])
    print(json.dumps({"ready": True, "cpus": usable_cpus()}), flush=True)
    if spec["watch"]:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        return [[] for _ in groups]
    first = groups[0]
    noise = [asyncio.create_task(_tap_refused(first, ws, spec["every_s"])) for ws in first.sockets[2:]] \
        if spec["others_tap"] else []
    latencies: list[list[float]] = [[] for _ in groups]
    step_s = spec["every_s"] / len(groups)
    for i in range(spec["taps"]):
        cell = f"{'AB'[i % 2]}{20 + i % 10}"  # free cells, each tap another (the busy game's pawns are nearer H15)
        for k in range(len(groups)) if i % 2 == 0 else reversed(range(len(groups))):
            sent = time.perf_counter()
            latencies[k] += await groups[k].tap(cell, i)
            await asyncio.sleep(max(0.0, sent + step_s - time.perf_counter()))
    for task in noise:
        task.cancel()
    for group in groups:
        await group.close()
    return latencies


async def _until_in(ws, seated: bool) -> None:
    """Read a joining phone's messages until it is admitted (and seated) and has a view."""
    wanted = {"admitted", "view"} | ({"seated"} if seated else set())
    async for text in ws:
        wanted.discard(json.loads(text).get("t"))
        if not wanted:
            return
    raise RuntimeError("a phone was refused while joining")


async def _tap_refused(group: _PhoneGroup, ws, every_s: float) -> None:
    """A phone that is not the guesser tapping cells too (refused: it loads the box as much)."""
    i = 0
    while True:
        await group.send(ws, t="cursor", cell=f"P{i % 30 + 1}")
        i += 1
        await asyncio.sleep(every_s)


def cursor_in(text: str) -> str | None:
    try:
        message = json.loads(text)
    except (TypeError, ValueError):
        return None
    game = message.get("game") if message.get("t") == "view" else None
    return game.get("cursor") if game else None


# --- the minimal Starlette broadcast (the anchor) ------------------------------------------------


def _anchor_view() -> tuple[str, str]:
    """A seated phone's view of the busy game as the console sends it, before and after its
    cursor's value."""
    from console.commands.measure_games import busy_game
    from console.web.views import ViewTexts

    state, ui = busy_game()
    text, cursor = ViewTexts(state, ui).text(1), json.dumps(str(ui.cursor))
    if text.count(cursor) != 1:  # a pawn's cell named like it would be taken for it
        raise ValueError(f"the busy game's view names {cursor} {text.count(cursor)} times, not once")
    start, _, end = text.partition(cursor)
    return start, end


def serve_anchor() -> None:
    """In the child: the anchor (`anchor_server`), its address printed, until stdin ends."""
    url, server, sock = anchor_server()
    print(json.dumps({"url": url, "code": "", "guesser": None, "cpus": usable_cpus()}), flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    server.run(sockets=[sock])


def anchor_server():
    """A Starlette app that sends every message it gets to every connection, on uvicorn with the
    console's websocket settings: its address, its uvicorn.Server and the socket to `run` it on.
    What it sends is a view as the console sends it (a seated phone's view of the busy game) with
    the tap's cell as its cursor, made by joining three strings: the phones' process then decodes
    the same text for both servers. A flat message of the view's length decoded in 8 us against a
    view's 56, and with 32 phones the phones' process decodes 32 in a row: its own work went into
    the console's figure."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute

    start, end = _anchor_view()
    clients = set()

    async def endpoint(ws):
        await ws.accept()
        clients.add(ws)
        try:
            while True:
                cell = json.loads(await ws.receive_text())["cell"]
                text = f"{start}{json.dumps(cell)}{end}"
                for client in list(clients):
                    await client.send_text(text)
        except Exception:
            clients.discard(ws)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(Starlette(routes=[WebSocketRoute("/", endpoint)]), log_level="warning",
                            ws="websockets-sansio", ws_per_message_deflate=False, lifespan="off")
    return f"http://127.0.0.1:{sock.getsockname()[1]}", uvicorn.Server(config), sock


def phone_figures(counts=(1, 10, 32), taps: int = 200, rounds: int = 8) -> dict:
    """A tap to every phone, p50/p99 over taps x phones, the console and the anchor each in a
    process of their own, the phones of both in a third, tapping the two in turn (`_phones`),
    on a core of its own (`cores_apart`). Each of the `rounds` starts all three again (where the
    scheduler puts a process moves its figures too), with taps / rounds taps for each server;
    the p50 ratio of each round is given too (its lowest and highest), so a figure says how far
    it can be trusted."""
    from console.commands.measure_games import percentile

    out = {}
    phones_cores, servers_cores = cores_apart()
    for n in counts:
        latencies: dict[str, list[list[float]]] = {"console": [], "anchor": []}
        for _ in range(rounds):
            console = Child("console", "guessing", "--web", cpus=servers_cores)
            anchor = Child("anchor", module=Phones.MODULE, cpus=servers_cores)
            phones = Phones(console.first, n, taps=max(1, taps // rounds), beside=anchor.first,
                            cpus=phones_cores)
            ran_on = {"phones": phones.first["cpus"], "console": console.first["cpus"], "anchor": anchor.first["cpus"]}
            try:
                got = phones.read()
            finally:
                phones.close()
                console.close()
                anchor.close()
            latencies["console"].append(got["latencies_ms"])
            latencies["anchor"].append(got["beside_ms"])
        row: dict = {}
        for name, by_round in latencies.items():
            values = [value for one_round in by_round for value in one_round]
            row[name] = {"p50": round(percentile(values, 50), 2), "p99": round(percentile(values, 99), 2),
                         "samples": len(values)}
        row["p50_ratio"] = round(row["console"]["p50"] / row["anchor"]["p50"], 2)
        each = [percentile(mine, 50) / percentile(theirs, 50)
                for mine, theirs in zip(latencies["console"], latencies["anchor"])]
        row["p50_ratio_rounds"] = [round(min(each), 2), round(max(each), 2)]
        row["cores"] = ran_on  # as each process of the last round found them
        out[str(n)] = row
    return out


def cores_apart() -> tuple[set[int] | None, set[int] | None]:
    """The CPUs the phones' process runs on, and the servers' (the console's and the anchor's,
    which take turns): the last CPU this process may use for the phones, the others for the
    servers; with one CPU, or where the system cannot keep a process to some (not Linux), all
    share them (None). On the box the phones are other devices, which take none of its cores.
    Sharing this machine's cores, the phones' process met the console's panel loop, woken to
    draw each tap as the views went out (the anchor has no panel): on 2 cores the console's p50
    ratio read 1.22x against 1.16x at 1 phone (6 runs each way), 1.18x against 1.16x at 10
    phones and 1.15x against 1.11x at 32 (4 runs each)."""
    usable = usable_cpus()
    return ({usable[-1]}, set(usable[:-1])) if usable is not None and len(usable) > 1 else (None, None)


if __name__ == "__main__":
    role, rest = sys.argv[1], sys.argv[2:]
    if role == "anchor":
        serve_anchor()
    elif role == "phones":
        run_phones(json.loads(rest[0]))
