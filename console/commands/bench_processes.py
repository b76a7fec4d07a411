"""The parts of `hues-console bench` that run the console in a process of its own, as on the box:
the still screens' CPU and phones in another process (N = 1, 10, 32) beside a minimal Starlette
broadcast. `bench_budget` runs it in a CPU quota (a Pi Zero 2 W's budget) and times its garbage
collection.

The measured process is only the console (its loop, its web server); the phones, the anchor
server and the bench are other processes, so their work is neither counted nor shares its GIL.
CPU is the child's own (getrusage over a window, once the screen has gone round its pictures
twice: `still_settle_s`), taken twice per screen (a range); the anchor for a still screen is a
bare 60 Hz wait loop measured in the same run. Every child is started with
`python -m console.commands.bench_processes ROLE ...`.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from dataclasses import replace

SETTLE_S = 1.0
WAIT_S = 10.0
STILL_SCREENS = ("idle", "guessing", "secret choice", "attract", "scoreboard", "game over", "brightness")


# --- the console as a child ----------------------------------------------------------------------


def serve_console(screen: str, web: bool, notify: str | None) -> None:
    """In the child: the console on `screen`, its loop in this (main) thread; prints its address
    and room code; then answers `cpu` (this process's CPU and clock), `late` (how late its
    time-driven frames reached the panel) and `gc` (`collection_times`) on stdin, and stops at
    the end of stdin."""
    from console.commands.bench_games import started_app
    from console.play.loop import freeze_start_up, run_realtime

    app = started_app()
    shown: list[tuple[float, object, object, object]] = []
    show = app.panel.show

    def timed_show(frame, private=False):  # when each frame reached the driver, and what it was drawn from
        sent = show(frame, private)
        if sent:
            shown.append((time.monotonic(), frame, app.game, app.ui))
        return sent

    app.panel.show = timed_show
    put_on_screen(app, screen, time.monotonic())
    url = code = ""
    if web:
        from console.commands.bench_web import attach_bench_web

        companion = attach_bench_web(app)
        url, code = companion.url, app.ui.room_code
        for seat in range(app.game.players if app.game is not None else 0):
            companion.room.book.hand_over(seat)  # the host's hand-over: mid-game the colours are the joystick's
    if notify:
        from console.play.sd_notify import SystemdNotifier

        app.notifier = SystemdNotifier({"NOTIFY_SOCKET": notify, "WATCHDOG_USEC": "2000000"})
    from console.game.rules import current_player

    guesser = current_player(app.game) if app.game is not None else None
    giver = app.game.giver if app.game is not None else None
    print(json.dumps({"url": url, "code": code, "guesser": guesser, "giver": giver}), flush=True)

    def answer() -> None:
        for line in sys.stdin:
            if line.strip() == "cpu":
                print(usage_line(), flush=True)
            elif line.strip() == "late":
                print(json.dumps({"late_ms": late_frames(shown)}), flush=True)
            elif line.strip() == "gc":
                print(json.dumps(collection_times()), flush=True)
        app.stop()

    threading.Thread(target=answer, daemon=True).start()
    run_realtime(app, 60, start=False, started=freeze_start_up)  # as the console's own process
    os._exit(0)


def late_frames(shown) -> list[float]:
    """For each frame that changed by itself (drawn from the same state as the one before), how
    long after its change it reached the panel, in ms: the change found on the renderer by
    bisection between the two frames' times."""
    from console.view.moment import first_change
    from console.view.render import render

    late = []
    for (before, old, game, ui), (at, frame, game2, ui2) in zip(shown, shown[1:]):
        if game is game2 and ui is ui2 and ui.screen != "idle":
            edge = first_change(lambda t: render(game, ui, t), before, old, at)
            late.append((at - edge) * 1000)
    return late


def put_on_screen(app, screen: str, now: float) -> None:
    from console.commands.bench_games import busy_game, reveal_game, whole_game
    from console.game import rules
    from console.game.board import Cell
    from console.game.record import action_from_json, fold_record
    from console.view.screens import CHEER_S
    from console.view.timeline import stored_timeline
    from console.view.ui import PANEL, Ui

    if screen == "guessing":
        state, _ = busy_game()
        app.put_on(state, Ui(screen="play", cursor=Cell(3, 20)), now)
    elif screen == "secret choice":  # the giver's card on the panel, the room looking away
        state = rules.apply(None, rules.NewGame(players=5, seed=11, first_giver=0, variant="cards"))
        app.put_on(state, Ui(screen="secret", secret_holder=PANEL, card_choice=1), now)
    elif screen == "game over":  # once the room has cheered, until the idle board comes back
        state = fold_record(enumerate(map(action_from_json, whole_game(4)), 1))
        app.put_on(state, Ui(screen="game_over", since=now - CHEER_S), now)
    elif screen == "scoreboard":
        state, _ = reveal_game()
        app.put_on(state, Ui(screen="reveal", since=now - 60.0), now)
    elif screen == "brightness":
        app.ui = replace(app.ui, screen="brightness")
    elif screen == "attract":  # the idle board after 45 s untouched: the last game's reveals
        app.pictures.attract = stored_timeline(whole_game(4)).reveals()
        app.pictures.attract_due = False
        app.ui = replace(app.ui, since=now - 45.0)
    elif screen != "idle":
        raise ValueError(f"no bench screen {screen!r}")


class Child:
    """A child process of this module, spoken to line by line."""

    def __init__(self, *args: str, preexec=None) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "console.commands.bench_processes", *args],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        preexec_fn=preexec)
        self.first = self.read()

    def read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a bench child ({self.process.args[3:]}) stopped")
        return json.loads(line)

    def ask(self, what: str) -> dict:
        self.process.stdin.write(what + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def usage_line() -> str:
    """In a child: its clock, its CPU so far and how often its threads went to sleep (voluntary
    context switches: each one a wake-up later), as one JSON line."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return json.dumps({"at": time.monotonic(), "cpu": usage.ru_utime + usage.ru_stime, "sleeps": usage.ru_nvcsw})


def cpu_share(child: Child, seconds: float, settle_s: float = SETTLE_S) -> tuple[float, float]:
    """The child's share of a core over `seconds` once `settle_s` have passed, and its wake-ups
    a second (the bench's two questions to it wake its answering thread twice)."""
    time.sleep(settle_s)
    a = child.ask("cpu")
    time.sleep(seconds)
    b = child.ask("cpu")
    elapsed = b["at"] - a["at"]
    return (b["cpu"] - a["cpu"]) / elapsed, (b["sleeps"] - a["sleeps"]) / elapsed


def collection_times() -> dict:
    """In a child: a full garbage collection's time as the console runs, what its start made
    frozen (`loop.freeze_start_up`), and the same with that thawed (the anchor), then frozen again."""
    import gc

    def collection_ms() -> float:
        begin = time.perf_counter()
        gc.collect()
        return round((time.perf_counter() - begin) * 1000, 2)

    frozen, kept = collection_ms(), gc.get_freeze_count()
    gc.unfreeze()
    thawed = collection_ms()
    gc.freeze()
    return {"frozen_ms": frozen, "thawed_ms": thawed, "objects_frozen": kept}


# --- the still screens -----------------------------------------------------------------------------


def bare_wait_loop(seconds: float) -> None:
    """In the child: the anchor, a loop that only waits 1/60 s at a time (what any 60 Hz loop costs)."""
    print(json.dumps({}), flush=True)
    stop = threading.Event()

    def answer():
        for line in sys.stdin:
            print(usage_line(), flush=True)
        stop.set()

    threading.Thread(target=answer, daemon=True).start()
    while not stop.wait(1 / 60):
        pass
    os._exit(0)


def still_figures(seconds: float = 10.0, repeats: int = 2) -> dict:
    """% of a core for each still screen (a range over `repeats`), the web on with one phone
    (another process) for guessing and the idle board, and the bare 60 Hz loop beside them.
    Each is measured over `seconds`, the idle board over a whole period of its glint
    (`still_window_s`). The window opens once the screen has gone round its pictures twice
    (`still_settle_s`): what a screen costs as it stays, not while its first rounds fill the
    output stage's and the driver's caches (the first glint meets the limiter's level still
    settling, the second one new pictures at the settled level)."""
    runs = [("bare 60 Hz wait loop (anchor)", "bare", ("bare",), False)] + [
        (screen, screen, ("console", screen), False) for screen in STILL_SCREENS
    ] + [(f"{screen}, web on, a phone connected", screen, ("console", screen, "--web"), True)
         for screen in ("guessing", "idle")]
    out = {}
    for name, screen, args, web in runs:
        shares, wakes, settle_s, window_s = [], [], still_settle_s(screen), still_window_s(screen, seconds)
        for _ in range(repeats):
            child = Child(*args)
            phone = Phones(child.first, 1, watch=True) if web else None
            try:
                share, woken = cpu_share(child, window_s, settle_s)
                shares.append(round(100 * share, 3))
                wakes.append(round(woken, 1))
            finally:
                if phone is not None:
                    phone.close()
                child.close()
        out[name] = {"percent": [min(shares), max(shares)], "wakes_per_s": [min(wakes), max(wakes)],
                     "seconds": window_s, "repeats": repeats,
                     "settled_s": settle_s}
    return out


def still_window_s(screen: str, seconds: float) -> float:
    """How long a still screen is measured: `seconds`, and for the idle board whole periods of its
    glint (render.IDLE_GLINT_S), at least one: another window would read more of its crossing or
    of its stillness than the board shows."""
    from console.view.render import IDLE_GLINT_S

    return max(1, math.ceil(seconds / IDLE_GLINT_S)) * IDLE_GLINT_S if screen == "idle" else seconds


def still_settle_s(screen: str) -> float:
    """How long a still screen runs before it is measured: two of its rounds (the idle board's
    glint comes every IDLE_GLINT_S; the guessing screen's beat and the others' are a second or
    hold still), and a second more."""
    from console.view.render import IDLE_GLINT_S, PAWN_S

    return SETTLE_S + 2 * (IDLE_GLINT_S if screen == "idle" else PAWN_S)


# --- phones in another process -------------------------------------------------------------------


class Phones(Child):
    """The phones' process: N websocket clients, each from its own loopback address."""

    def __init__(self, server: dict, n: int, *, taps: int = 0, every_s: float = 0.05,
                 others_tap: bool = False, anchor: bool = False, watch: bool = False) -> None:
        mode = "anchor" if anchor else "watch" if watch else "console"
        seats = [server.get("guesser")] + [s for s in range(10) if s not in (server.get("guesser"), server.get("giver"))]
        super().__init__("phones", server["url"], server["code"], str(n), str(taps), str(every_s), mode,
                         str(int(others_tap)), ",".join(str(s) for s in seats if s is not None))


def run_phones(url: str, code: str, n: int, taps: int, every_s: float, mode: str, others_tap: bool,
               seats: list[int]) -> None:
    """In the phones' process: join (the first phone in the guesser's seat), tap; print the latencies."""
    latencies = asyncio.run(_phones(url, code, n, taps, every_s, mode, others_tap, seats))
    print(json.dumps({"latencies_ms": latencies}), flush=True)
    os._exit(0)


async def _phones(url, code, n, taps, every_s, mode, others_tap, seats) -> list[float]:
    from websockets.asyncio.client import connect

    ws_url = url.replace("http://", "ws://") + ("/" if mode == "anchor" else "/ws")
    counter = [0]

    async def send(ws, **message):
        counter[0] += 1
        await ws.send(json.dumps({"n": counter[0], **message}))

    sockets = []
    for i in range(n):  # one guest after another, each in before the next (the waiting room is smaller than 32)
        ws = await connect(ws_url, origin=url, compression=None, open_timeout=WAIT_S,
                           local_addr=(f"127.0.0.{2 + i}", 0))
        sockets.append(ws)
        if mode != "anchor":
            await send(ws, t="join", code=code)
            if i < len(seats):  # the others watch without a seat
                await send(ws, t="take", seat=seats[i])
            await asyncio.wait_for(_until_in(ws, i < len(seats)), WAIT_S)
    arrived: list[dict] = [{} for _ in range(n)]
    done = asyncio.Event()
    wanted: list[str | None] = [None]

    async def read(i, ws):
        async for text in ws:
            cell = _cursor_in(text)
            if cell is not None and cell == wanted[0] and cell not in arrived[i]:
                arrived[i][cell] = time.perf_counter()
                if all(cell in a for a in arrived):
                    done.set()

    readers = [asyncio.create_task(read(i, ws)) for i, ws in enumerate(sockets)]
    print(json.dumps({"ready": True}), flush=True)
    if mode == "watch":
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        return []
    tapper = sockets[0]
    noise = [asyncio.create_task(_tap_refused(ws, every_s, counter)) for ws in sockets[2:]] if others_tap else []
    latencies = []
    for i in range(taps):
        cell = f"{'AB'[i % 2]}{20 + i % 10}"  # free cells, each tap another (the busy game's pawns are nearer H15)
        for a in arrived:
            a.clear()
        wanted[0], sent = cell, time.perf_counter()
        done.clear()
        if mode == "anchor":
            await sockets[0].send(json.dumps({"cell": cell}))
        else:
            await send(tapper, t="cursor", cell=cell)
        try:
            await asyncio.wait_for(done.wait(), WAIT_S)
        except asyncio.TimeoutError:
            raise RuntimeError(f"tap {i}: not every phone saw it") from None
        latencies += [(a[cell] - sent) * 1000 for a in arrived]
        await asyncio.sleep(max(0.0, sent + every_s - time.perf_counter()))
    for task in noise + readers:
        task.cancel()
    for ws in sockets:
        await ws.close()
    return latencies


async def _until_in(ws, seated: bool) -> None:
    """Read a joining phone's messages until it is admitted (and seated) and has a view."""
    wanted = {"admitted", "view"} | ({"seated"} if seated else set())
    async for text in ws:
        wanted.discard(json.loads(text).get("t"))
        if not wanted:
            return
    raise RuntimeError("a phone was refused while joining")


async def _tap_refused(ws, every_s, counter) -> None:
    """A phone that is not the guesser tapping cells too (refused: it loads the box as much)."""
    i = 0
    while True:
        counter[0] += 1
        await ws.send(json.dumps({"t": "cursor", "n": counter[0] + 10_000, "cell": f"P{i % 30 + 1}"}))
        i += 1
        await asyncio.sleep(every_s)


def _cursor_in(text: str) -> str | None:
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
    from console.commands.bench_games import busy_game
    from console.web.views import ViewTexts

    state, ui = busy_game()
    text, cursor = ViewTexts(state, ui).text(1), json.dumps(str(ui.cursor))
    if text.count(cursor) != 1:  # a pawn's cell named like it would be taken for it
        raise ValueError(f"the busy game's view names {cursor} {text.count(cursor)} times, not once")
    start, _, end = text.partition(cursor)
    return start, end


def serve_anchor() -> None:
    """In the child: a Starlette app that sends every message it gets to every connection, on
    uvicorn with the console's websocket settings. What it sends is a view as the console sends
    it (a seated phone's view of the busy game) with the tap's cell as its cursor, made by joining
    three strings: the phones' process then decodes the same text for both servers. A flat
    message of the view's length decoded in 8 us against a view's 56, and with 32 phones the
    phones' process decodes 32 in a row: its own work went into the console's figure."""
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
    print(json.dumps({"url": f"http://127.0.0.1:{sock.getsockname()[1]}", "code": "", "guesser": None}), flush=True)
    config = uvicorn.Config(Starlette(routes=[WebSocketRoute("/", endpoint)]), log_level="warning",
                            ws="websockets-sansio", ws_per_message_deflate=False, lifespan="off")
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    uvicorn.Server(config).run(sockets=[sock])


def phone_figures(counts=(1, 10, 32), taps: int = 200, rounds: int = 8) -> dict:
    """A tap to every phone, p50/p99 over taps x phones, the console and the anchor each in a
    process of their own, the phones in a third. They take turns, `rounds` of taps / rounds
    each, in the order console, anchor, anchor, console, ...: this machine's speed drifts over
    a minute by as much as the difference measured, and one after the other the drift went into
    the ratio. The p50 ratio of each round is given too (its lowest and highest): with 4 rounds
    of 25 taps, two whole runs differed by a fifth, and a figure says how far it can be trusted."""
    from console.commands.bench_games import percentile

    servers = (("console", ("console", "guessing", "--web"), False), ("anchor", ("anchor",), True))
    out = {}
    for n in counts:
        latencies: dict[str, list[list[float]]] = {"console": [], "anchor": []}
        for turn in range(rounds):
            for name, args, anchor in servers if turn % 2 == 0 else servers[::-1]:
                server = Child(*args)
                phones = Phones(server.first, n, taps=max(1, taps // rounds), anchor=anchor)
                try:
                    latencies[name].append(phones.read()["latencies_ms"])
                finally:
                    phones.close()
                    server.close()
        row: dict = {}
        for name, by_round in latencies.items():
            values = [value for one_round in by_round for value in one_round]
            row[name] = {"p50": round(percentile(values, 50), 2), "p99": round(percentile(values, 99), 2),
                         "samples": len(values)}
        row["p50_ratio"] = round(row["console"]["p50"] / row["anchor"]["p50"], 2)
        each = [percentile(mine, 50) / percentile(theirs, 50)
                for mine, theirs in zip(latencies["console"], latencies["anchor"])]
        row["p50_ratio_rounds"] = [round(min(each), 2), round(max(each), 2)]
        out[str(n)] = row
    return out


if __name__ == "__main__":
    role, rest = sys.argv[1], sys.argv[2:]
    if role == "console":
        serve_console(rest[0], "--web" in rest, rest[rest.index("--notify") + 1] if "--notify" in rest else None)
    elif role == "bare":
        bare_wait_loop(0)
    elif role == "anchor":
        serve_anchor()
    elif role == "phones":
        url, code, n, taps, every, mode, others, seats = rest
        run_phones(url, code, int(n), int(taps), float(every), mode, others == "1",
                   [int(s) for s in seats.split(",") if s])
