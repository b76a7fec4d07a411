"""The command's standard streams, set up so that output that cannot be written is one line and
exit status 2, whichever command writes it and however (print, a PNG to `-`, the terminal
simulator, a log line): `palette > /dev/full`, `palette >&-`, a terminal that hung up.

Python's own streams report such a failure as an OSError from wherever the write happened, which
cannot be told from any other OSError, and again at exit when it flushes what is left (status
120). So the process's stdout and stderr are reopened on a file object that names the stream in
its error, and `settle` empties them before exit. A pipe whose reader left stays a
BrokenPipeError: `main` ends that quietly, as `cat` does.

A standard descriptor the command was started without (`>&-`) is held by /dev/null opened the
other way round (stdout read-only, stdin write-only), so that using it fails with EBADF as a
closed one would, and no file, socket or journal the command opens later takes its number: a
print would write into it.
"""

from __future__ import annotations

import errno
import io
import os
import sys

NAMES = {0: "standard input", 1: "standard output", 2: "standard error"}


class OutputError(OSError):
    """Standard output or standard error cannot take what the command writes. An OSError still,
    so that code which copes with a failed write (argparse's, logging's) copes with this one."""

    def __init__(self, fd: int, error: OSError):
        reason = "it is closed" if error.errno == errno.EBADF else error.strerror or error.__class__.__name__
        super().__init__(error.errno, f"cannot write to {NAMES[fd]} ({reason})")
        self.fd = fd

    def __str__(self) -> str:
        return f"hues-console: {self.strerror}"


class _StandardFile(io.FileIO):
    """fd 1 or 2, its write errors raised as OutputError (a BrokenPipeError stays one)."""

    def write(self, data) -> int:
        try:
            return super().write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(self.fileno(), error) from None


def hold_closed_descriptors() -> None:
    """Give each of fds 0, 1, 2 the command was started without a /dev/null that refuses use."""
    for fd, mode in ((0, os.O_WRONLY), (1, os.O_RDONLY), (2, os.O_RDONLY)):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, mode | os.O_CLOEXEC)
            if held != fd:
                os.dup2(held, fd, inheritable=False)
                os.close(held)


def reopen_standard_streams() -> None:
    """The process's own stdout and stderr (not a test's capture) on a _StandardFile each."""
    for fd, name, line_buffered in ((1, "stdout", os.isatty(1)), (2, "stderr", True)):
        stream = getattr(sys, name)
        if stream is not None and stream is not getattr(sys, f"__{name}__"):
            continue  # replaced already (pytest's capture, a caller's StringIO): left alone
        encoding = getattr(stream, "encoding", None) or "utf-8"
        errors = getattr(stream, "errors", None) or ("backslashreplace" if fd == 2 else "strict")
        if stream is not None:
            stream.flush()
        raw = _StandardFile(fd, "w", closefd=False)
        setattr(sys, name, io.TextIOWrapper(io.BufferedWriter(raw), encoding=encoding, errors=errors,
                                            line_buffering=line_buffered))


def say(line: str) -> None:
    """`line` on standard error if it can take it; a command's last word must not fail itself."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def settle(status: int) -> int:
    """Flush stdout and stderr before exit. What cannot be written is said in one line and makes
    the status 2 (if it was 0); the stream is then pointed at /dev/null, so that Python's own flush
    at exit does not fail again (status 120 and an "Exception ignored" message)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            if stream is not None:
                stream.flush()
        except BrokenPipeError:
            _drop(stream)
        except OutputError as error:
            _drop(stream)
            if status == 0:
                say(str(error))
                status = 2
    return status


def _drop(stream) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
        stream.flush()
    except (OSError, ValueError, AttributeError):
        pass
