"""What every command shares: the one-line user error (exit status 2), reading an input file and
writing an output file. Lives below the commands so that none of them imports `main` back."""

from __future__ import annotations

from pathlib import Path

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the person at the keyboard: printed as one line, exit status 2."""


def read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read ({exc.__class__.__name__})") from None


def write_output(path: str, data: str | bytes) -> None:
    try:
        Path(path).write_bytes(data if isinstance(data, bytes) else data.encode())
    except OSError as exc:
        raise UsageError(f"{path}: cannot be written ({exc.strerror or exc.__class__.__name__})") from None
