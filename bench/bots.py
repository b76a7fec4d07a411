"""The computer players' decisions in a CPU quota standing in for a Pi Zero 2 W (`bench.budget`'s
cgroup, 0.11 of a core): a child process in the quota loads what a computer player's first seat
loads, then plays whole games of computer players (`bots.player.game_alone`), each move
(`bots.player.move`) after a pause as a player at the table leaves (the quota's period refills
meanwhile), and reports each kind of move's wall time beside an anchor timed the same way.

    .venv/bin/python -m bench bots 0.11 [--json]     # root, cgroups

The kinds: the giver's target, first clue, second clue or pass; a guess reading one clue, and
one reading two. The anchor is a fixed piece of arithmetic (`anchor`), the size of a decision,
timed after the same pause in the same process: on a loaded machine it shows how much of a
decision's time is the load's, and each decision's CPU time (its thread's) is given beside its
wall time. The loads, once a process: the deck's cards (the first card looked
at), the knowledge (`aim(level)`) and the clue check's word lists of the game's language
(`clue.prepare`), the last two as the console loads them when computer players sit.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time

from bench.budget import cpu_group
from console.commands.measure_games import percentile

PAUSE_S = 0.25  # before each decision: a bot's pace is slower than that
PLAYERS = 5
# the timed games: both levels, four languages, both variants (a free giver weighs 8 cells, not a card's 4)
GAMES = (("expert", "en", "cards"), ("child", "it", "cards"), ("expert", "vi", "free"), ("child", "cs", "free"))
KINDS = ("choose_target", "first_clue", "second_clue_or_pass", "guess_one_clue", "guess_two_clues")
ANCHOR_TERMS = 20_000


def decision_figures(quota: float) -> dict:
    """The child's figures, run in a cgroup with `quota` of one core."""
    group = cpu_group(quota)
    try:
        done = subprocess.run([sys.executable, "-m", "bench.bots"], capture_output=True, text=True, timeout=900,
                              preexec_fn=group.enter)
        throttled = group.throttled()
    finally:
        group.remove()
    if done.returncode != 0:
        raise RuntimeError(f"bench.bots' child failed: {done.stderr.strip()[-300:]}")
    return {"quota": quota, "cgroup": group.kind, **json.loads(done.stdout), "throttled": throttled}


def anchor() -> float:
    """A fixed piece of arithmetic in plain Python, a few milliseconds like a decision."""
    return math.fsum(math.exp(-i * 1e-4) for i in range(ANCHOR_TERMS))


def kind_of(seen) -> str:
    """Which kind of decision the move for `seen` is (the phase, and how many clues a guess reads)."""
    if seen.phase in ("guess1", "guess2"):
        return "guess_two_clues" if len(seen.clues) == 2 else "guess_one_clue"
    return {"choose_target": "choose_target", "clue1": "first_clue", "clue2": "second_clue_or_pass"}[seen.phase]


def measure(pause_s: float = PAUSE_S, games: tuple[tuple[str, str, str], ...] = GAMES) -> dict:
    """In this process: each game's loads, then its moves one by one, wall ms; the anchor after the
    same pause before each round's first move."""
    load_avg = os.getloadavg()
    start = time.perf_counter()
    from console.bots.aim import aim
    from console.bots.player import game_alone, move
    from console.game.clue import prepare
    from console.game.deck import cards

    imports_ms = (time.perf_counter() - start) * 1000
    began = time.perf_counter()
    cards()  # built the first time a card is looked at, in any game of the process
    cards_ms = (time.perf_counter() - began) * 1000
    loads: dict[str, dict[str, float]] = {}
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    cpu: dict[str, list[float]] = {kind: [] for kind in KINDS}  # the thread's CPU time: what the load does not stretch
    anchors: list[float] = []

    def timed(seen, seat, level, lang):
        if seen.phase == "choose_target":
            time.sleep(pause_s)
            began = time.perf_counter()
            anchor()
            anchors.append((time.perf_counter() - began) * 1000)
        time.sleep(pause_s)
        began, began_cpu = time.perf_counter(), time.thread_time()
        action = move(seen, seat, level, lang)
        times[kind_of(seen)].append((time.perf_counter() - began) * 1000)
        cpu[kind_of(seen)].append((time.thread_time() - began_cpu) * 1000)
        return action

    for number, (level, lang, variant) in enumerate(games, 1):
        began = time.perf_counter()
        aim(level)
        knowledge_ms = (time.perf_counter() - began) * 1000
        began = time.perf_counter()
        prepare(lang)  # the clue check's word lists, read as the computer players sit
        loads[f"{level}:{lang} {variant}"] = {"knowledge_ms": round(knowledge_ms), "clue_check_ms": round(
            (time.perf_counter() - began) * 1000)}
        game_alone(PLAYERS, number, level, lang, variant, mover=timed)
    from console.bots.knowledge import knowledge

    return {"concepts": len(knowledge().concepts),
            "games": [f"{level}:{lang} {variant}" for level, lang, variant in games], "players": PLAYERS, "imports_ms": round(imports_ms), "cards_ms": round(cards_ms), "loads_ms": loads,
            "load_average": [round(v, 2) for v in load_avg + os.getloadavg()],
            "decisions_ms": {name: _spread(values) for name, values in times.items()},
            "decisions_cpu_ms": {name: _spread(values) for name, values in cpu.items()},
            "anchor_ms": _spread(anchors)}


def _spread(values: list[float]) -> dict:
    return {"p50": round(percentile(values, 50), 1), "p99": round(percentile(values, 99), 1),
            "max": round(max(values), 1), "n": len(values)}


def format_bots(figures: dict) -> str:
    before, after = figures["load_average"][0], figures["load_average"][3]
    lines = [f"computer players in a cgroup with {100 * figures['quota']:.0f} % of a core ({figures['cgroup']}), "
             f"{figures['concepts']} concepts, {len(figures['games'])} game(s) of {figures['players']} "
             f"({', '.join(figures['games'])}); load average {before} before, {after} after"]
    lines.append(f"  the modules imported in {figures['imports_ms']} ms, the deck's cards built in "
                 f"{figures['cards_ms']} ms")
    first = next(iter(figures["loads_ms"]))
    for game, load in figures["loads_ms"].items():
        what = "the first seat loads" if game == first else "then"
        lines.append(f"  {what} {game}: the knowledge in {load['knowledge_ms']} ms, the clue check's words in "
                     f"{load['clue_check_ms']} ms")
    for name, d in figures["decisions_ms"].items():
        c = figures["decisions_cpu_ms"][name]
        lines.append(f"  {name.replace('_', ' ')}: p50 {d['p50']} ms, p99 {d['p99']} ms, max {d['max']} ms ({d['n']}); "
                     f"its CPU time p50 {c['p50']} ms, max {c['max']} ms")
    a = figures["anchor_ms"]
    lines.append(f"  anchor (fixed arithmetic): p50 {a['p50']} ms, p99 {a['p99']} ms, max {a['max']} ms ({a['n']})")
    lines.append(f"  held back by the quota in {figures['throttled']['held_back']} of "
                 f"{figures['throttled']['periods']} periods")
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(measure()))
