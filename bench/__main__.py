"""The lab's command line, from a checkout (`.venv/bin/python -m bench RUN`):

  all [--json] [--cpu-quota SHARE]   the full run (`bench.lab`): about 12 minutes, 13 with the quota
  quota SHARE [--seconds S] [--json] the console in a cgroup with SHARE of one core (0.11: a Pi Zero
                                     2 W), 10 phones tapping: needs root and cgroups
  bots SHARE [--json]                the computer players' decisions in a cgroup with SHARE of one
                                     core (`bench.bots`): needs root and cgroups
  bot-games [--games K] [--json]     the computer players' points per round against a random placer's,
                                     K games of each level in each language (`bench.bot_games`)
  attacks [ATTACK ...]               the party's figures under each attack (`bench.attacks`)
  opcodes [--json]                   the Python a phone's tap runs, counted (`bench.opcodes`)
  network [--json]                   the ddp and e131 drivers: frame to datagram, datagrams a second (`bench.network`)

A wrong argument is one line and exit status 2, as for `hues-console`.
"""

from __future__ import annotations

import argparse
import json
import sys


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def cpu_share(text: str) -> float:
    """A share of one core for the quota run: above 0 (1 ms of each 100 ms at least), at most 1."""
    try:
        share = float(text) if text.replace(".", "", 1).isdigit() and text.isascii() else None
    except ValueError:
        share = None
    if share is None or not 0.01 <= share <= 1:
        raise argparse.ArgumentTypeError(f"a CPU share is a number from 0.01 to 1 (0.11 for a Pi Zero 2 W), not {text!r}")
    return share


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"a time in seconds, above 0 and at most 3600, not {text!r}")
    return value


def game_count(text: str) -> int:
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= 1000):
        raise argparse.ArgumentTypeError(f"a number of games from 1 to 1000, not {text!r}")
    return int(text)


def attack(text: str) -> str:
    from bench.attacker import ATTACKS

    if text not in ATTACKS:
        raise argparse.ArgumentTypeError(f"no attack {text!r}: one of {', '.join(ATTACKS)}")
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="run", required=True, metavar="RUN", parser_class=_Parser)
    p = sub.add_parser("all", help="the full lab run")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.add_argument("--cpu-quota", type=cpu_share, metavar="SHARE",
                   help="also run the console in a cgroup with this share of one core (0.11: a Pi Zero 2 W; root)")
    p = sub.add_parser("quota", help="the console in a CPU quota, 10 phones tapping (root, cgroups)")
    p.add_argument("share", type=cpu_share, help="the share of one core (0.11: a Pi Zero 2 W)")
    p.add_argument("--seconds", type=seconds, default=60.0, help="how long the phones tap (default 60)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("bots", help="the computer players' decisions in a CPU quota (root, cgroups)")
    p.add_argument("share", type=cpu_share, help="the share of one core (0.11: a Pi Zero 2 W)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("bot-games", help="the computer players' points per round against a random placer's")
    p.add_argument("--games", type=game_count, default=20, metavar="K", help="seeds 1..K (default 20)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("attacks", help="the party's figures under each attack")
    p.add_argument("attacks", nargs="*", type=attack, metavar="ATTACK", help="an attack (default: all of them)")
    p = sub.add_parser("opcodes", help="the Python a phone's tap runs in the console and the anchor, counted")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("network", help="the network drivers: frame to datagram on loopback, datagrams a second")
    p.add_argument("--json", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.run == "attacks":
        from bench.attacks import report

        report(args.attacks)
        return 0
    if args.run == "bot-games":
        from bench.bot_games import bot_game_figures, format_bot_games

        results = bot_game_figures(args.games)
        print(json.dumps(results, indent=2) if args.json else format_bot_games(results))
        return 0
    if args.run == "network":
        from bench.network import format_network, network_figures

        results = network_figures()
        print(json.dumps(results, indent=2) if args.json else format_network(results))
        return 0
    from bench import lab

    if args.run == "all":
        results = lab.run_lab(args.cpu_quota)
        text = lab.format_report(results)
    elif args.run == "quota":
        from bench.budget import quota_figures

        try:
            results = quota_figures(args.share, seconds=args.seconds)
        except PermissionError as exc:
            print(f"python -m bench quota: no cgroup of its own ({exc.strerror}: {exc.filename}): run it as root",
                  file=sys.stderr)
            return 2
        text = lab.format_quota(results)
    elif args.run == "bots":
        from bench.bots import decision_figures, format_bots

        try:
            results = decision_figures(args.share)
        except PermissionError as exc:
            print(f"python -m bench bots: no cgroup of its own ({exc.strerror}: {exc.filename}): run it as root",
                  file=sys.stderr)
            return 2
        text = format_bots(results)
    else:
        from bench.opcodes import tap_opcodes

        results = tap_opcodes()
        text = lab.format_opcodes(results)
    print(json.dumps(results, indent=2) if args.json else text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
