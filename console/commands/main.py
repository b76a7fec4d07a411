"""The `hues-console` command: one sub-command per job, every user error one line and exit 2.

Set HUES_DEBUG=1 to see the traceback of an unexpected failure instead of its one-line summary.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import re
import signal
import sys

from console.commands.common import EXIT_USAGE, UsageError
from console.commands.streams import (OutputError, hold_closed_descriptors, reopen_standard_streams, say,
                                     settle)
from console.game.clue import LANGUAGES
from console.game.record import RecordError
from console.game.rules import VARIANTS

def cmd_replay(args: argparse.Namespace) -> int:
    from console.commands.records import replay_main

    if args.video is None and (args.fps is not None or args.scale is not None):
        raise UsageError("--fps and --scale go with replay --video OUT")
    return replay_main(args.file, as_json=args.json, video=args.video, fps=args.fps, scale=args.scale)


def cmd_check_config(args: argparse.Namespace) -> int:
    from console.config.loader import check_config_main

    return check_config_main(args.config if args.file is None else args.file)


def cmd_play(args: argparse.Namespace) -> int:
    from console.commands.session import play

    return play(args.config, simulator=False)


def cmd_sim(args: argparse.Namespace) -> int:
    from console.commands.session import play, run_headless

    if args.web:
        if args.headless or args.script or args.png or args.state_json:
            raise UsageError("sim --web plays from the browser: --headless, --script, --png and --state-json do not go with it")
        from console.commands.browser import play_in_browser

        return play_in_browser(args.config, args.port)
    if args.port is not None:
        raise UsageError("--port goes with sim --web")
    if args.headless:
        if not args.script:
            raise UsageError("sim --headless needs --script FILE (the inputs to play)")
        return run_headless(args.config, args.script, png=args.png, state_json_path=args.state_json,
                            seed=args.seed, report_actions=args.report_actions)
    if args.script or args.png or args.state_json:
        raise UsageError("--script, --png and --state-json go with sim --headless")
    return play(args.config, simulator=True)


def cmd_render(args: argparse.Namespace) -> int:
    from console.commands.session import render_record

    return render_record(args.config, args.record, args.time, args.json, args.png)


def cmd_palette(args: argparse.Namespace) -> int:
    from console.commands.session import print_palette

    if args.legibility:
        from console.commands.legibility import print_figures
        from console.commands.wiring import build_output
        from console.config.loader import load_config

        return print_figures(build_output(load_config(args.config), "sim-headless")[0], args.json)
    return print_palette(args.config, as_json=args.json, driver=args.driver)


def cmd_screens(args: argparse.Namespace) -> int:
    from console.commands.screens import screens_main

    return screens_main(args.out)


def cmd_diag(args: argparse.Namespace) -> int:
    from console.commands.diag import diag_main

    if args.headless and not args.script:
        raise UsageError("diag --headless needs --script FILE (the inputs to play)")
    if args.receiver is not None:
        if args.sim or args.headless or args.script or args.png:
            raise UsageError("diag --receiver HOST checks the receiver alone: it goes with no other option")
        from console.commands.diag import receiver_main

        return receiver_main(args.config, args.receiver)
    return diag_main(args.config, args.sim, args.script, args.png)


def cmd_bench(args: argparse.Namespace) -> int:
    from console.commands.measure import measure_main

    return measure_main(as_json=args.json, quick=args.quick)


def cmd_history(args: argparse.Namespace) -> int:
    from console.commands.records import history_main
    from console.commands.session import open_store

    return history_main(open_store(args.config), sys.stdout)


def cmd_export(args: argparse.Namespace) -> int:
    from console.commands.records import export_main
    from console.commands.session import open_store

    return export_main(open_store(args.config), args.game, sys.stdout)


def cmd_bot_guess(args: argparse.Namespace) -> int:
    from console.commands.bot import guess_main

    return guess_main(args.lang, args.level, args.words, args.count)


def cmd_bot_clue(args: argparse.Namespace) -> int:
    from console.commands.bot import clue_main

    return clue_main(args.lang, args.level, args.words, args.cell)


def cmd_bot_play(args: argparse.Namespace) -> int:
    from console.commands.bot import play_main

    return play_main(args.players, args.seed, args.level, args.lang, args.variant, args.record)


def cmd_clue(args: argparse.Namespace) -> int:
    from console.commands.clue import clue_main

    return clue_main(args.lang, args.second, args.text, args.table)


def cmd_sticker(args: argparse.Namespace) -> int:
    from console.commands.sticker import sticker_main

    return sticker_main(args.config, args.out, args.url)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a wrong argument is one line (`hues-console render: ...`), exit status 2,
    instead of the usage text and the error; `--help` still shows the usage."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: {_printable(message)} (see {self.prog} --help)\n")


MAX_TIME_S = 24 * 3600.0


def animation_time(text: str) -> float:
    """`render --time T`: seconds from 0 to a day; nan, inf and 1e308 are refused."""
    try:
        t = decimal_number(text)
    except argparse.ArgumentTypeError:
        t = math.nan
    if not 0 <= t <= MAX_TIME_S:  # also refuses nan
        raise argparse.ArgumentTypeError(f"the time must be a number of seconds from 0 to {MAX_TIME_S:g}, "
                                         f"not {text!r}")
    return t


_WHOLE = re.compile(r"[-+]?[0-9]{1,30}")
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def whole_number(text: str) -> int:
    """A whole number in ASCII digits: int() also reads '1_0', ' 7 ' and other scripts' digits
    ('١٠' is 10), which a record, a script or a cell does not take either."""
    if not _WHOLE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected a whole number in digits 0-9, not {text[:40]!r}")
    return int(text)


def decimal_number(text: str) -> float:
    """A decimal number in ASCII digits (float() also reads '1_0', 'infinity' and '١٠')."""
    if not _DECIMAL.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected a number in digits 0-9, not {text[:40]!r}")
    return float(text)


def output_path(text: str) -> str:
    """An output file (`-` for standard output); an empty name is an error, not a silent no-op."""
    if not text:
        raise argparse.ArgumentTypeError("the output file name is empty")
    return text


def text_argument(text: str) -> str:
    """A text argument (a game id, an address): bytes that are not UTF-8 reach Python as lone
    surrogates (PEP 383, the file system encoding's surrogateescape), which no store, QR code or
    log can encode; refused here, once, instead of as a UnicodeEncodeError deep inside. File
    names keep those bytes: the os module gives them back to the kernel unchanged."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not UTF-8 text (character {exc.start + 1})") from None
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="hues-console", description="Hues and Cues on an LED panel.")
    common = OneLineParser(add_help=False)
    common.add_argument("--config", metavar="FILE",
                        help="configuration file (else $HUES_CONFIG, /etc/hues-console/console.yaml, the default)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, parents=[common])  # every command takes --config

    p = command("play", "run the console on the configured panel and buttons")
    p.set_defaults(run=cmd_play)

    p = command("sim", "run the console in the terminal simulator (or headless)")
    p.add_argument("--headless", action="store_true", help="no screen: inputs from --script on a virtual clock")
    p.add_argument("--web", action="store_true", help="the panel in a web page, played from its keys and buttons")
    p.add_argument("--port", type=whole_number, metavar="N", help="with --web: the port to serve on (default web.port; 0: any free one)")
    p.add_argument("--script", metavar="FILE", help="input script: up/down/left/right/a/b/start [N], hold B S, wait S")
    p.add_argument("--png", metavar="OUT", type=output_path, help="write the last frame as a PNG")
    p.add_argument("--state-json", metavar="OUT", type=output_path, help="write the game state as the replay JSON")
    p.add_argument("--seed", type=whole_number, default=0, help="seed for random choices (first cue giver, deck)")
    p.add_argument("--report-actions", action="store_true",
                   help="print each game action as JSON when it is stored (for tests and tooling)")
    p.set_defaults(run=cmd_sim)

    p = command("replay", "replay a game record (JSON lines) and print where it ends")
    p.add_argument("file", help="the game record")
    p.add_argument("--json", action="store_true", help="print the final state as one JSON object")
    p.add_argument("--video", metavar="OUT", help="animate the whole game as the panel shows it: OUT.png "
                   "(APNG) or OUT.webp (lossless WebP), every colour exact")
    p.add_argument("--fps", type=decimal_number, help="with --video: samples a second (default 20)")
    p.add_argument("--scale", type=whole_number, help="with --video: pixels an LED (default 10)")
    p.set_defaults(run=cmd_replay)

    p = command("render", "the frame for the state a game record reaches")
    p.add_argument("--record", required=True, metavar="FILE")
    p.add_argument("--time", type=animation_time, default=0.0, metavar="T", help="animation time in seconds")
    p.add_argument("--json", metavar="OUT", type=output_path,
                   help="write width, height and pixels as JSON ('-' for stdout)")
    p.add_argument("--png", metavar="OUT", type=output_path, help="write the frame as a PNG ('-' for stdout)")
    p.set_defaults(run=cmd_render)

    p = command("palette", "the 480 board colours, their LED drive values and the light they give")
    p.add_argument("--json", action="store_true")
    p.add_argument("--legibility", action="store_true",
                   help="how far pawns and the cursor stand out from every cell, as light on the LEDs")
    p.add_argument("--driver", metavar="NAME", type=text_argument,
                   help="the LED driver to model (default: the configured one; leds-dev for a Pi 5)")
    p.set_defaults(run=cmd_palette)

    p = command("screens", "draw every screen of the panel as a PNG (the README's pictures)")
    p.add_argument("--out", metavar="DIR", default="docs/screens", help="where the pictures go (default docs/screens)")
    p.set_defaults(run=cmd_screens)

    p = command("diag", "wiring check: corners, the chain in order, coordinates, then every button")
    p.add_argument("--sim", action="store_true", help="in the terminal simulator, keys for buttons")
    p.add_argument("--headless", action="store_true", help="no screen: inputs from --script")
    p.add_argument("--script", metavar="FILE", help="input script for the headless check")
    p.add_argument("--png", metavar="OUT", type=output_path, help="with --script: write the last frame as a PNG")
    p.add_argument("--receiver", metavar="HOST", type=text_argument,
                   help="check the LED matrix (WLED, FPP) at this address or name, then stop")
    p.set_defaults(run=cmd_diag)

    p = command("bench", "whether this machine keeps up: frame cost, press to frame, still CPU, a phone's tap")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.add_argument("--quick", action="store_true",
                   help="small samples in a few seconds: shows the command works, not what the machine does")
    p.set_defaults(run=cmd_bench)

    p = command("sticker", "a QR code with the box's address for the phones, to stick on the box")
    p.add_argument("--out", required=True, metavar="FILE", type=output_path, help="the picture: .svg, .png, .pdf or .eps")
    p.add_argument("--url", type=text_argument, help="the address to encode (default: the configured web server's)")
    p.set_defaults(run=cmd_sticker)

    p = command("bot", "what a computer player would do: guess a clue, give one, play a whole game")
    bot = p.add_subparsers(dest="bot_command", required=True, metavar="guess|clue|play")
    from console.bots import LEVELS as levels

    q = bot.add_parser("guess", help="the cells a computer guesser would choose for a clue, best first")
    q.add_argument("--lang", required=True, choices=LANGUAGES, help="the clue's language")
    q.add_argument("--level", choices=levels, default="expert", help="who guesses (default expert)")
    q.add_argument("--count", type=whole_number, default=10, metavar="N", help="how many cells (default 10)")
    q.add_argument("words", nargs="+", type=text_argument, metavar="WORD", help="the clue: one or two words")
    q.set_defaults(run=cmd_bot_guess)
    q = bot.add_parser("clue", help="the clue a computer giver would give for a target cell")
    q.add_argument("--lang", required=True, choices=LANGUAGES, help="the clue's language")
    q.add_argument("--level", choices=levels, default="expert", help="who gives (default expert)")
    q.add_argument("--words", metavar="FILE", help="pick from this file's words, one a line (default: any it knows)")
    q.add_argument("cell", type=text_argument, help="the target, like H15")
    q.set_defaults(run=cmd_bot_clue)
    q = bot.add_parser("play", help="a whole game of computer players only: a line per round, the scores, the winners")
    q.add_argument("--players", required=True, type=whole_number, metavar="N", help="how many (3 to 10)")
    q.add_argument("--seed", required=True, type=whole_number, metavar="S",
                   help="the deck's shuffle and the first cue giver (0 to 2147483647): the same seed, the same game")
    q.add_argument("--level", choices=levels, default="expert", help="how well they play (default expert)")
    q.add_argument("--lang", choices=LANGUAGES, default="en", help="the language of their clues (default en)")
    q.add_argument("--variant", choices=VARIANTS, default="cards", help="cards, or free: any target (default cards)")
    q.add_argument("--record", metavar="FILE", type=output_path, help="write the game's record, for replay")
    q.set_defaults(run=cmd_bot_play)

    p = command("clue", "whether a typed clue keeps the rules (the phones' check): ok, or the rule and the word")
    p.add_argument("--lang", choices=LANGUAGES, help="the giver's language (English holds too)")
    p.add_argument("--second", action="store_true", help="the second clue (one or two words, no comparative)")
    p.add_argument("--table", action="store_true", help="print the words the check knows as a markdown table")
    p.add_argument("text", nargs="*", metavar="TEXT", help="the clue (its words may be separate arguments)")
    p.set_defaults(run=cmd_clue)

    p = command("check-config", "check a configuration file and report every problem")
    p.add_argument("file", nargs="?", help="the file to check (default: the one the console would use)")
    p.set_defaults(run=cmd_check_config)

    p = command("history", "finished games: date, players, scores, winners")
    p.set_defaults(run=cmd_history)

    p = command("export", "print a game record that `replay` accepts")
    p.add_argument("game", nargs="?", type=text_argument, help="game id (default: the latest game)")
    p.set_defaults(run=cmd_export)
    return parser


def configure_logging(environ=os.environ) -> None:
    """Log lines go to stderr, which the service sends to the journal; HUES_LOG_LEVEL (the unit
    sets INFO) chooses how much, WARNING by default so a terminal game stays quiet."""
    root = logging.getLogger()
    if root.handlers:  # the command line's own process sets up logging; tests have theirs
        return
    level = logging.getLevelName(environ.get("HUES_LOG_LEVEL", "WARNING").upper())
    root.setLevel(level if isinstance(level, int) else logging.WARNING)
    root.addHandler(escaped_log_handler(sys.stderr, "%(levelname)s %(name)s: %(message)s"))


def main(argv: list[str] | None = None) -> int:
    hold_closed_descriptors()
    reopen_standard_streams()
    configure_logging()
    return settle(_run(argv))


def _run(argv: list[str] | None) -> int:
    from console.config.loader import ConfigError

    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, or a wrong argument already said in one line
        return done.code if isinstance(done.code, int) else EXIT_USAGE
    try:
        status = args.run(args)
        sys.stdout.flush()  # here, not at exit, so that a reader gone away is caught below
        return status
    except ConfigError as exc:
        for line in exc.problems:
            say(_printable(line))
        return EXIT_USAGE
    except (UsageError, RecordError) as exc:
        say(_printable(str(exc)))
        return EXIT_USAGE
    except OutputError as exc:  # a full disk, a closed stdout, a terminal that hung up
        say(str(exc))
        return EXIT_USAGE
    except BrokenPipeError:
        return _reader_gone()
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # never a traceback to a party host
        if os.environ.get("HUES_DEBUG"):
            raise
        say(_printable(f"hues-console: unexpected {exc.__class__.__name__}: {exc} (HUES_DEBUG=1 shows details)"))
        return 1


class _OneLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return _printable(super().format(record))


def escaped_log_handler(stream, fmt: str = "%(message)s") -> logging.Handler:
    """Log lines in the format `fmt`, escaped on one line: a warning quotes what the store holds
    (a game id...), which must not reach the terminal or the journal raw."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_OneLineFormatter(fmt))
    return handler


def _reader_gone() -> int:
    """`hues-console export | head -1`: the reader closed the pipe. Stop quietly with the status
    a SIGPIPE gives, as `cat` would. Python ignores SIGPIPE, so the write failed with EPIPE, and
    the output still buffered would fail again at exit: stdout is pointed at /dev/null first (the
    Python docs, signal module, "Note on SIGPIPE"). Not SIG_DFL: that would also kill the console
    on a write to a closed Redis socket."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout is not a file (a test's capture)
        pass
    return 128 + signal.SIGPIPE


def _printable(text: str) -> str:
    from console.config.loader import one_line

    return one_line(text)


if __name__ == "__main__":
    sys.exit(main())
