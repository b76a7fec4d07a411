"""The computer players' decisions in a CPU quota standing in for a Pi Zero 2 W (`bench.budget`'s
cgroup, 0.11 of a core): a child process in the quota loads the knowledge as a computer player's
first seat does, then makes decisions one at a time, a pause between them as a player at the table
leaves (the quota's period refills meanwhile), and reports each one's wall time.

    .venv/bin/python -m bench bots 0.11 [--json]     # root, cgroups

The decisions: a guess for one word and for two, over words of every kind; the giver's word for a
target from everything it knows (the shortlists), over targets across the board.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from bench.budget import cpu_group
from console.commands.measure_games import percentile

PAUSE_S = 0.25  # between two decisions: a bot's pace is slower than that
SAMPLE = 40  # decisions of each kind


def decision_figures(quota: float) -> dict:
    """The child's figures, run in a cgroup with `quota` of one core."""
    group = cpu_group(quota)
    try:
        done = subprocess.run([sys.executable, "-m", "bench.bots"], capture_output=True, text=True, timeout=600,
                              preexec_fn=group.enter)
        throttled = group.throttled()
    finally:
        group.remove()
    if done.returncode != 0:
        raise RuntimeError(f"bench.bots' child failed: {done.stderr.strip()[-300:]}")
    return {"quota": quota, "cgroup": group.kind, **json.loads(done.stdout), "throttled": throttled}


def _timed(call, pause_s: float) -> float:
    time.sleep(pause_s)
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def measure(pause_s: float = PAUSE_S, sample: int = SAMPLE) -> dict:
    """In this process: the first seat's load, then `sample` decisions of each kind, wall ms."""
    start = time.perf_counter()
    from console.bots.aim import aim, shortlist_vocabulary
    from console.bots.knowledge import knowledge
    from console.game.board import ALL_CELLS

    expert = aim("expert")
    load_ms = (time.perf_counter() - start) * 1000
    k = knowledge()
    vocabulary = shortlist_vocabulary(k, "expert")
    words = vocabulary[:: max(1, len(vocabulary) // sample)][:sample]
    targets = ALL_CELLS[:: max(1, len(ALL_CELLS) // sample)][:sample]
    times = {
        "guess_one_word": [_timed(lambda c=c: expert.guess([c]), pause_s) for c in words],
        "guess_two_words": [_timed(lambda a=a, b=b: expert.guess([a, b]), pause_s) for a, b in zip(words, words[1:])],
        "clue_from_vocabulary": [_timed(lambda t=t: expert.clue(vocabulary, t), pause_s) for t in targets],
    }
    return {"concepts": len(k.concepts), "first_seat_load_ms": round(load_ms),
            "decisions_ms": {name: {"p50": round(percentile(values, 50), 1), "p99": round(percentile(values, 99), 1),
                                    "max": round(max(values), 1), "n": len(values)}
                             for name, values in times.items()}}


def format_bots(figures: dict) -> str:
    lines = [f"computer players in a cgroup with {100 * figures['quota']:.0f} % of a core ({figures['cgroup']}), "
             f"{figures['concepts']} concepts: the first seat loads the knowledge in {figures['first_seat_load_ms']} ms"]
    for name, d in figures["decisions_ms"].items():
        lines.append(f"  {name.replace('_', ' ')}: p50 {d['p50']} ms, p99 {d['p99']} ms, max {d['max']} ms ({d['n']})")
    lines.append(f"  held back by the quota in {figures['throttled']['held_back']} of "
                 f"{figures['throttled']['periods']} periods")
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(measure()))
