"""The box through what a party does to it: a console that hangs (the watchdog), Start held down
(the power-off through logind and polkit, with another session logged in), and the plug pulled
again and again over one game (SIGKILL to the whole container), sometimes with the append-only
file's tail damaged as a power cut leaves it. One game runs through all of them, and every power-on
measures the time to the first frame, as the console logs it.

"Shown" and "acknowledged" are what the console logged as durable (tests/box/machine.py,
ConsoleLog): it logs an action once its journal has it on disk, before the frame that shows it."""

from __future__ import annotations

import os
import random
import subprocess
import statistics
import threading
import time

from tests.box.checks_service import console_up, journal, process_status
from tests.box.game import SETTLE_S, BoxGame
from tests.box.machine import ConsoleLog
from tests.box.root import BoxError

WATCHDOG_LIMIT_S = 20  # SIGSTOP to the console's READY again
POWER_CUTS = int(os.environ.get("HUES_BOX_POWER_CUTS", "30"))
DAMAGE_EVERY = 3  # every third power cut also damages the append-only file's tail
START_UP_EVERY = 4  # every fourth comes during the start-up (Redis's repair and start, the console's)
INCR_DIR = "/var/lib/redis/appendonlydir"


def presses_ready(stage, timeout: float = 30) -> None:
    stage.box.wait_for("the console to read its buttons", stage.presses.ready, timeout, poll_s=0.05)


class Party:
    """The game that goes on through the checks of this module (and the next, when the power
    cuts outlast one game)."""

    def __init__(self, stage):
        self.stage = stage
        self.game = BoxGame(stage.presses)
        self.log: ConsoleLog | None = None
        self.acknowledged: list[dict] = []  # every action of the game the console said was durable
        self.base: list[dict] = []  # the game's record as offered at this boot (or [] for a new game)
        self.since = 0  # where the game's actions of this boot begin in log.stored
        self.resumed = False  # the console offers the game: the next press takes the offer
        self.first_frames: list[float] = []
        self.games = 0

    def record(self) -> list[dict]:
        """The game's actions the console has said are durable, up to now."""
        return self.base + self.log.stored[self.since:]

    def follow(self) -> ConsoleLog:
        if self.log is not None:
            self.log.close()
        self.log = ConsoleLog(self.stage.box)
        return self.log

    def new_game(self) -> None:
        """From the idle board, set up a game and plan it from the one the console draws."""
        log = self.follow() if self.log is None else self.log
        console_up(self.stage)
        presses_ready(self.stage)
        self.since, self.base, self.resumed = len(log.stored), [], False
        self.game.start(log, self.since)
        self.acknowledged = self.record()

    def power_on(self) -> list[dict]:
        """Boot, wait for READY and for the console to offer the game; returns what it offers,
        checked against everything acknowledged before."""
        box = self.stage.box
        box.boot()
        log = self.follow()
        console_up(self.stage)
        line = log.wait("the first frame", lambda: next((l for l in log.lines if "first frame" in l), None), 30)
        self.first_frames.append(float(line.split("first frame ")[1].split()[0]) - box.clock_start)
        offered = log.wait("the console to offer the unfinished game", lambda: log.resumed, 30)[-1]
        self.agrees(offered)
        self.base, self.since, self.resumed = list(offered), 0, True
        self.acknowledged = list(offered)
        return offered

    def agrees(self, found: list[dict]) -> None:
        lost = len(self.acknowledged) - len(found)
        assert found[:len(self.acknowledged)] == self.acknowledged, (
            f"{max(lost, 0)} acknowledged actions lost (or changed): the console had said "
            f"{len(self.acknowledged)} were durable and offers {len(found)}")
        planned = self.game.planned[:len(found)]
        differs = next((n for n, (a, b) in enumerate(zip(found, planned)) if a != b), len(planned))
        assert found == planned, (  # a press the loaded machine delivered late reads as another move
            f"the console offers moves that were never played: action {differs} is "
            f"{found[differs] if differs < len(found) else None}, the plan's "
            f"{planned[differs] if differs < len(planned) else None}")

    def left(self) -> int:
        return len(self.game.planned) - len(self.record())

    def play_on(self, until) -> threading.Thread:
        """Press the rest of the game in a thread of its own (it stops when the box goes off)."""
        done, resumed = len(self.record()), self.resumed
        self.resumed = False

        def press():
            time.sleep(SETTLE_S)
            try:
                self.game.play(self.game.rest(done, resumed), until=until)
            except OSError:
                pass  # the box went off under the presses: the FIFO has no reader

        presser = threading.Thread(target=press, daemon=True)
        presser.start()
        return presser

    def finish(self) -> int:
        """Play the game to its end: it ends as planned. Returns its length."""
        self.play_on(until=None).join(600)
        self.log.wait("the game's end", lambda: self.game.finished(self.record()), 60)
        assert self.record() == self.game.planned, "the game that ended is not the one played"
        self.games += 1
        return len(self.record())


def party(stage) -> Party:
    if not hasattr(stage, "party"):
        stage.party = Party(stage)
    return stage.party


def watchdog(stage) -> str:
    """SIGSTOP the console mid-game: systemd's watchdog kills it and starts it again, and the
    game it offers holds every pawn it had shown."""
    box, the = stage.box, party(stage)
    the.new_game()
    log = the.log
    the.game.play(the.game.rest(1, resumed=False), until=lambda: len(the.record()) >= 8)
    time.sleep(SETTLE_S)
    shown = the.record()
    the.acknowledged = shown
    before = box.show("hues-console.service", "MainPID", "NRestarts", "WatchdogUSec", "RestartUSec")
    stopped = time.monotonic()
    box.run("systemctl", "kill", "--kill-who=main", "--signal=SIGSTOP", "hues-console.service")
    stage.presses.reset()

    def restarted():
        now = box.show("hues-console.service", "MainPID", "ActiveState", "SubState", "NRestarts")
        return now if now["MainPID"] not in ("0", before["MainPID"]) and now["SubState"] == "running" else None

    after = box.wait_for("the console to be restarted", restarted, 60)
    took = time.monotonic() - stopped
    offered = log.wait("the restarted console to offer the game", lambda: log.resumed, 30)[-1]
    the.agrees(offered)
    assert len(offered) == len(shown), f"offered {len(offered)} actions, {len(shown)} were shown"
    the.base, the.since, the.resumed = list(offered), len(log.stored), True
    said = journal(stage, 200)
    assert "Watchdog timeout" in said, said[-1500:]
    stage.figure("watchdog_restart_s", round(took, 1))
    assert took <= WATCHDOG_LIMIT_S, f"READY again {took:.1f} s after SIGSTOP (at most {WATCHDOG_LIMIT_S} s)"
    return (f"SIGSTOP mid-game (WatchdogSec={int(before['WatchdogUSec'].rstrip('s') or 0)}s, "
            f"RestartSec={before['RestartUSec']}): killed by the watchdog and READY again in {took:.1f} s "
            f"(NRestarts {before['NRestarts']} -> {after['NRestarts']}); the game offered holds all "
            f"{len(shown)} shown actions")


def power_off_by_start(stage) -> str:
    """Start held down powers the box off: `systemctl poweroff` as the console's user `hues`,
    asked of logind over D-Bus and allowed by the installer's polkit rule, with another session
    open and no capability at all."""
    return hold_start_to_power_off(stage, "hues", "0000000000000000")


def hold_start_to_power_off(stage, user: str, capabilities: str) -> str:
    """Holds Start until the box is off; what it proved. The console runs as `user` with the
    bounding set `capabilities` (never CAP_SYS_BOOT), while guest has a session open."""
    box, the = stage.box, party(stage)
    console = console_up(stage)
    status = process_status(stage, console["MainPID"])
    assert status["CapBnd"].strip() == capabilities, status["CapBnd"]
    assert not int(status["CapBnd"], 16) & (1 << 22), "CAP_SYS_BOOT is in the bounding set"
    owner = box.run("stat", "-c", "%U", f"/proc/{console['MainPID']}").stdout.strip()
    assert owner == user, f"the console runs as {owner}, not {user}"
    box.run("systemd-run", "--unit=guest-session", "--uid=guest", "--property=PAMName=login", "/bin/sleep", "infinity")
    sessions = box.wait_for("guest's session", lambda: [
        line for line in box.run("loginctl", "list-sessions", "--no-legend").stdout.splitlines() if " guest " in f" {line} "], 10)
    presses_ready(stage)
    if the.log is not None:
        the.log.close()  # nothing of this machine's in the box while it shuts down
        the.log = None
    time.sleep(SETTLE_S)
    held = time.monotonic()
    try:
        stage.presses.hold("start", 6.0)
    except OSError:
        pass  # the box is going down while Start is still held
    stage.presses.reset()
    code = box.wait_off(60)
    if code is None:
        said = box.run("journalctl", "-b", "-o", "short", "-n", "60", check=False).stdout
        raise BoxError(f"the box is still on 60 s after Start was held; its journal:\n{said}")
    took = time.monotonic() - held
    said = last_boot_journal(stage)
    assert "shutdown button held: powering off" in said, said[-1500:]
    assert "System is powering down" in said, said[-1500:]
    stage.figure(f"power_off_{user}_after_hold_start_s", round(took, 1))
    return (f"Start held: the box powered off {took:.1f} s later (nspawn exit {code}) with the console "
            f"as {user}, CapBnd {capabilities}, and guest's session {sessions[0].split()[0]} open; logind: "
            f"'System is powering down'")


def last_boot_journal(stage) -> str:
    """The box's journal of its last boot, read from its disk here (the box is off)."""
    out = subprocess.run(["journalctl", f"--directory={stage.box.file('/var/log/journal')}", "-b", "-o",
                          "short-monotonic", "--no-pager"], capture_output=True, text=True)
    return out.stdout


def damage_tail(stage, kind: str) -> str:
    """What a power cut leaves at the end of Redis's newest incr file: a page the file grew by
    but whose data never reached the card (zeros), or a command written only in part."""
    directory = stage.box.file(INCR_DIR)
    incr = max(directory.glob("appendonly.aof.*.incr.aof"), key=lambda p: int(p.name.split(".")[2]))
    data = incr.read_bytes()
    if kind == "zeroed":
        incr.write_bytes(data + bytes(random.randint(1, 8) * 512))
    else:
        last = data.rfind(b"*1\r\n$5\r\nMULTI")
        cut = data[last:] if last >= 0 else data[-200:]
        incr.write_bytes(data + cut[:random.randint(1, max(1, len(cut) - 1))])
    return f"{kind} tail on {incr.name}"


def repairs_said(stage) -> int:
    """How often redis-repair-aof has said it repaired something, over every boot of the box
    (read from its disk: the box may be off)."""
    out = subprocess.run(["journalctl", f"--directory={stage.box.file('/var/log/journal')}", "-o", "cat",
                          "-u", "redis-server.service", "--no-pager"], capture_output=True, text=True).stdout
    return out.count("redis-repair-aof: ")


def power_cuts(stage) -> str:
    """The plug pulled at random moments of a game, POWER_CUTS times, and the box switched on
    again each time: nothing acknowledged is lost and the game goes on to its end (a game that
    nears its end is finished and another one started, for as many cuts as asked)."""
    box, the, rng = stage.box, party(stage), random.Random(19)
    if box.running():  # a developer's run without the power-off check before
        box.cut_power()
    cuts, at_start_up, damaged, lengths, said = 0, 0, [], [], 0
    the.power_on()
    while cuts < POWER_CUTS:
        if the.left() < 6:
            lengths.append(the.finish())
            the.new_game()
        log, extra = the.log, rng.randint(1, 3)
        target = len(log.stored) + extra
        presser = the.play_on(until=lambda: len(log.stored) >= target)
        log.wait(f"{extra} more actions", lambda: len(log.stored) >= target or not presser.is_alive(), 120)
        time.sleep(rng.uniform(0, 0.3))  # a random moment after it: mid-frame, mid-write, mid-press
        the.acknowledged = the.record()
        box.cut_power()
        stage.presses.reset()
        presser.join(10)  # its next press finds no reader: none of this boot's presses reaches the next
        assert not presser.is_alive(), "the presses went on after the power cut"
        log.close()
        cuts += 1
        damage = cuts % DAMAGE_EVERY == 0
        if damage:
            damaged.append(damage_tail(stage, "zeroed" if len(damaged) % 2 == 0 else "torn"))
            repairs = repairs_said(stage)
        if cuts % START_UP_EVERY == 0 and cuts < POWER_CUTS:
            box.boot(wait=False)
            time.sleep(rng.uniform(0.1, 1.5))
            box.cut_power()
            cuts += 1
            at_start_up += 1
        the.power_on()
        if damage:  # Redis could not have started on it: the drop-in repaired it (a boot cut
            # short may have done so before its journal kept the repair's line)
            sound = box.run("redis-check-aof", f"{INCR_DIR}/appendonly.aof.manifest", check=False)
            assert sound.returncode == 0, f"the AOF is still damaged after the boot: {sound.stdout[-800:]}"
            assert box.show("redis-server.service", "ActiveState")["ActiveState"] == "active"
            said += repairs_said(stage) > repairs
    lengths.append(the.finish())
    stage.figure("power_cuts", {"cuts": cuts, "during_start_up": at_start_up, "damaged": damaged,
                                "repairs_logged": said, "games": len(lengths), "actions": sum(lengths)})
    frames = the.first_frames
    stage.figure("boot_to_first_frame_s", {"boots": len(frames), "median": round(statistics.median(frames), 2),
                                           "max": round(max(frames), 2), "min": round(min(frames), 2)})
    return (f"{cuts} power cuts (SIGKILL to the box's PID 1) over {len(lengths)} game(s) of {lengths} actions, "
            f"{at_start_up} of them during a start-up, {len(damaged)} with a damaged AOF tail "
            f"({', '.join(damaged)}), repaired at boot (redis-repair-aof logged {said}); 0 acknowledged "
            "actions lost; each game went on "
            "to its end as played")


def boot_to_first_frame(stage) -> str:
    frames = party(stage).first_frames
    assert frames, "no power-on measured"
    assert all(0 < f < 60 for f in frames), frames
    median = statistics.median(frames)
    return (f"{len(frames)} power-ons: first frame {median:.2f} s after the box's clock started (median; "
            f"{min(frames):.2f}-{max(frames):.2f} s; goal 3 s), measured by the console (CLOCK_BOOTTIME in "
            f"the box's time namespace)")


CHECKS = [
    ("watchdog_restarts_a_hung_console", watchdog),
    ("power_off_by_holding_start", power_off_by_start),
    ("power_cuts_lose_nothing", power_cuts),
    ("boot_to_first_frame", boot_to_first_frame),
]
