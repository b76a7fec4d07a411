"""Reading a file the host named, in bounded time and memory: the configuration, a game record,
an input script. Lives with the configuration (the lowest layer that reads files) so that the
commands read their inputs the same way.

Only a regular file, or `-` for standard input, is read, and at most `limit` bytes of it: a FIFO
would block `open()` until some writer comes, `/dev/zero` never ends, and a 5 MB file is not a
configuration. The file is opened with O_NONBLOCK, so that opening a FIFO returns at once instead
of waiting for a writer (fifo(7): "A process can open a FIFO in nonblocking mode. In this case,
opening for read-only succeeds even if no one has opened on the write side yet"); on a regular
file the flag changes nothing (open(2)). Its type and size are checked before anything is read.
"""

from __future__ import annotations

import os
import stat
import sys

STDIN = "-"


class InputFileError(Exception):
    """A named input that cannot be used; str() says what is wrong, without the file's name."""


def input_name(path: str) -> str:
    """The name messages give an input: the path, `<stdin>` for `-`, `''` for an empty one."""
    return {STDIN: "<stdin>", "": "''"}.get(path, path)


def read_bounded(path: str, limit: int, what: str = "a file") -> bytes:
    """The bytes of the regular file at `path` (or of standard input for `-`), at most `limit`;
    InputFileError if it is missing, not a regular file, unreadable or larger. `what` names the
    file a directory was given for ("a configuration file")."""
    if path == "":
        raise InputFileError("no file name given (an empty path)")
    data = _read_stdin(limit) if path == STDIN else _read_file(path, limit, what)
    if len(data) > limit:
        raise InputFileError(f"is larger than {_size(limit)}: this cannot be the right file")
    return data


def _read_file(path: str, limit: int, what: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputFileError("no such file") from None
    except OSError as exc:
        raise InputFileError(f"cannot be read ({exc.strerror or exc.__class__.__name__})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputFileError(f"is a directory, not {what}")
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError("is not a regular file (a pipe or a device); give - to read standard input")
        if info.st_size > limit:
            raise InputFileError(f"is larger than {_size(limit)}: this cannot be the right file")
        return os.read(fd, limit + 1)  # the size is checked again after: the file may have grown
    except OSError as exc:
        raise InputFileError(f"cannot be read ({exc.strerror or exc.__class__.__name__})") from None
    finally:
        os.close(fd)


def _read_stdin(limit: int) -> bytes:
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise InputFileError("standard input cannot be read here")
    try:
        return stream.read(limit + 1)
    except (OSError, ValueError) as exc:
        raise InputFileError(f"standard input cannot be read ({exc.__class__.__name__})") from None


def _size(limit: int) -> str:
    return f"{limit // (1 << 20)} MiB" if limit >= 1 << 20 else f"{limit // 1024} KiB"
