"""What every command shares: the one-line user error (exit status 2), reading an input file and
writing an output file. Lives below the commands so that none of them imports `main` back."""

from __future__ import annotations

import errno
import os
import sys

from console.config.files import STDIN, InputFileError, input_name, read_bounded

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the person at the keyboard: printed as one line, exit status 2."""


def read_text(path: str, limit: int) -> str:
    """The UTF-8 text of the regular file at `path` (or standard input for `-`), at most `limit`
    bytes; a UTF-8 BOM is skipped. UsageError names the file and what is wrong."""
    try:
        data = read_bounded(path, limit)
    except InputFileError as exc:
        raise UsageError(f"{input_name(path)}: {exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{input_name(path)}: not UTF-8 text (byte {exc.start + 1} cannot be read)") from None


def write_output(path: str, data: str | bytes) -> None:
    """Write `data` to the file at `path`, or to standard output for `-`. Opened with O_NONBLOCK so
    that a FIFO nobody reads is an error at once instead of a wait for ever (fifo(7): "open for
    write-only fails with ENXIO ... unless the other end has already been opened"); the writes
    themselves block as usual."""
    raw = data if isinstance(data, bytes) else data.encode()
    if path == STDIN:
        sys.stdout.flush()
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "wb") as file:
            file.write(raw)
    except OSError as exc:
        problem = "a pipe nobody reads" if exc.errno == errno.ENXIO else exc.strerror or exc.__class__.__name__
        raise UsageError(f"{path}: cannot be written ({problem})") from None
