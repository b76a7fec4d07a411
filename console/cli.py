"""The `hues-console` command: one sub-command per job, every user error one line and exit 2.

Set HUES_DEBUG=1 to see the traceback of an unexpected failure instead of its one-line summary.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from console.record import RecordError, replay_record, state_json, state_summary

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the person at the keyboard: printed as one line, exit status 2."""


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read ({exc.__class__.__name__})") from None


def cmd_replay(args: argparse.Namespace) -> int:
    state = replay_record(_read_text(args.file), source=args.file)
    if args.json:
        print(json.dumps(state_json(state)))
    else:
        print(state_summary(state))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hues-console", description="Hues and Cues on an LED panel.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("replay", help="replay a game record (JSON lines) and print where it ends")
    p.add_argument("file", help="the game record")
    p.add_argument("--json", action="store_true", help="print the final state as one JSON object")
    p.set_defaults(run=cmd_replay)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (UsageError, RecordError) as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # never a traceback to a party host
        if os.environ.get("HUES_DEBUG"):
            raise
        print(f"hues-console: unexpected {exc.__class__.__name__}: {exc} (HUES_DEBUG=1 shows details)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
