"""The local journal: every write of the store, fsynced to the console's own disk before the
panel shows its effect, so an acknowledged action survives a power cut whatever Redis is doing.

Redis is where games are kept; the journal is only the durable step in front of it. The store
appends each write (a game started, a record line, a game closed, a setting) here, then a writer
brings Redis up to date. Once Redis holds everything, the journal is rewritten down to the game
being played (so a console that boots with Redis down can still offer it), and a clean exit with
nothing left to write removes it.

One file per running console, `journal-<token>.jsonl` in the state directory, held with an
exclusive flock while it runs. A file nobody holds is what a stopped (crashed, powered-off)
console left: the next console to start reads it and writes it to Redis. Each line is
`<crc32 in 8 hex digits> <JSON>`. A torn last line (the power went mid-write) is cut off and kept
beside it as `<file>.damaged`. A journal this console cannot read whole (a damaged line with more
after it, entries of a newer version, more than MAX_TAKEN bytes) is read as far as it can be and
then kept, renamed `<file>.set-aside`: never deleted. It is read as a stream, one line at a time,
so a start takes bounded time and memory whatever the file holds.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.store.format import JournalError, StateDirInUseError

log = logging.getLogger(__name__)

MAX_TAKEN = 16 * 1024 * 1024  # far beyond an evening's games played offline (~20 KB a game)
MAX_LINE = 4 * 1024 * 1024  # one entry: a game's whole record at most
TORN_KEPT = 64 * 1024  # how much of a torn last line is kept in .damaged


def default_state_dir(environ: dict[str, str] | None = None) -> Path:
    """systemd's $STATE_DIRECTORY (the unit's StateDirectory=), else ~/.local/state/hues-console."""
    environ = os.environ if environ is None else environ
    if environ.get("STATE_DIRECTORY"):
        return Path(environ["STATE_DIRECTORY"].split(":")[0])
    base = environ.get("XDG_STATE_HOME") or str(Path(environ.get("HOME", "~")).expanduser() / ".local" / "state")
    return Path(base) / "hues-console"


def console_identity(state_dir: Path) -> str:
    """This console's lease token, kept in its state directory so that it outlives a crash."""
    path = Path(state_dir) / "console-id"
    try:  # non-blocking and bounded: a FIFO or /dev/zero put there must not hang the start
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            token = os.read(fd, 64).decode("ascii", "replace").strip() if stat.S_ISREG(os.fstat(fd).st_mode) else ""
        finally:
            os.close(fd)
        if len(token) == 32 and all(c in "0123456789abcdef" for c in token):
            return token
    except OSError:
        pass
    token = os.urandom(16).hex()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fresh = path.with_name("console-id.new")  # renamed over whatever is there (a FIFO would block)
        fresh.write_text(token + "\n")
        os.replace(fresh, path)
    except OSError as error:
        log.warning("cannot keep the console's identity in %s (%s)", path, error.strerror)
    return token


def lock_state_dir(directory: Path) -> int:
    """Hold the state directory for this console (a flock on `console.lock`, let go when the
    process ends): two consoles on one directory share an identity and a journal, and one would
    resume the other's game under its feet. StateDirInUseError names the other console's pid."""
    path = Path(directory) / "console.lock"
    try:
        Path(directory).mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError as error:
        raise JournalError(f"the state directory {directory} cannot be used ({error.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        other = os.pread(fd, 20, 0).decode("ascii", "replace").strip()
        os.close(fd)
        raise StateDirInUseError(f"another console (pid {other or '?'}) is running on the state directory "
                                 f"{directory}: stop it, or give this one its own store.state_dir") from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass  # only the message above reads it
    return fd


def encode_entry(entry: dict) -> bytes:
    text = json.dumps(entry, separators=(",", ":"))  # ASCII: a line read back from Redis may hold lone surrogates
    return f"{zlib.crc32(text.encode()):08x} {text}\n".encode()


def decode_line(raw: bytes) -> dict | None:
    """One journal line (with its newline) -> its entry, or None when it is damaged."""
    text = raw[9:-1]
    try:  # the exact text of the crc (int() would also take " 1f" or "1_f")
        ok = raw.endswith(b"\n") and raw[8:9] == b" " and raw[:8] == b"%08x" % zlib.crc32(text)
        entry = json.loads(text) if ok else None
    except (ValueError, RecursionError):
        entry = None
    return entry if isinstance(entry, dict) else None


def decode_entries(data: bytes) -> tuple[list[dict], int]:
    """A journal's bytes -> its entries up to the first damaged line, and how many bytes were valid."""
    entries, valid = [], 0
    for raw in data.splitlines(keepends=True):
        entry = decode_line(raw)
        if entry is None:
            break
        entries.append(entry)
        valid += len(raw)
    return entries, valid


class Journal:
    """This console's journal file: `append` returns once the entry is on disk."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:
            raise JournalError(f"the state directory {self.directory} cannot be made ({error.strerror})") from None
        self.path = self.directory / f"journal-{os.urandom(8).hex()}.jsonl"
        self._fd = self._open_locked(self.path)
        try:
            fsync_directory(self.directory)  # the new file's name is on disk too, not only its data
        except OSError as error:
            raise JournalError(f"the state directory {self.directory} cannot be synced ({error.strerror})") from None

    @staticmethod
    def _open_locked(path: Path) -> int:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        except OSError as error:
            raise JournalError(f"the journal {path} cannot be opened ({error.strerror})") from None
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file: nobody else holds it
        return fd

    def append(self, entry: dict) -> None:
        """Write one entry and fsync it; JournalError (disk full...) leaves the file as it was."""
        data = encode_entry(entry)
        end = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            written = os.write(self._fd, data)
            if written != len(data):
                raise OSError(28, "No space left on device")
            os.fsync(self._fd)
        except OSError as error:
            try:
                os.ftruncate(self._fd, end)  # no half line for the reader to trip on
            except OSError:
                pass
            raise JournalError(f"the journal {self.path} cannot be written ({error.strerror})") from None

    def rewrite(self, entries: list[dict]) -> None:
        """Replace the journal by `entries` atomically (a new file renamed over the old one)."""
        temporary = self.path.with_suffix(".new")
        fd = self._open_locked(temporary)
        try:
            os.ftruncate(fd, 0)
            data = b"".join(encode_entry(e) for e in entries)
            if os.write(fd, data) != len(data):
                raise OSError(28, "No space left on device")
            os.fsync(fd)
            os.rename(temporary, self.path)
            fsync_directory(self.directory)
        except OSError as error:
            os.close(fd)
            temporary.unlink(missing_ok=True)
            raise JournalError(f"the journal {self.path} cannot be rewritten ({error.strerror})") from None
        os.close(self._fd)
        self._fd = fd

    def close(self, remove: bool) -> None:
        """Let the file go; `remove` when Redis holds everything in it."""
        if remove:
            self.path.unlink(missing_ok=True)
            fsync_directory(self.directory)
        os.close(self._fd)


@dataclass
class Leftover:
    """A journal a console left behind when it stopped without writing everything to Redis."""

    path: Path
    _fd: int
    unread: str = ""  # why some of it was not taken: then it is set aside, not removed

    def entries(self) -> Iterator[dict]:
        """Its valid entries in order, read as a stream. A damaged line is skipped (the record's
        checksum chain keeps what follows it from counting twice or out of order); at most
        MAX_TAKEN bytes of entries are taken."""
        taken, number = 0, 0
        with open(self._fd, "rb", closefd=False) as handle:
            while True:
                raw = handle.readline(MAX_LINE + 1)
                number += 1
                if not raw:
                    return
                if not raw.endswith(b"\n"):
                    rest = handle.read(1)
                    if not rest and len(raw) <= MAX_LINE:
                        self._keep_torn(raw)
                        return
                    self.skipped(f"line {number} is longer than {MAX_LINE} bytes")
                    return
                entry = decode_line(raw)
                if entry is None:
                    self.skipped(f"line {number} is damaged")
                    continue
                taken += len(raw)
                if taken > MAX_TAKEN:
                    self.skipped(f"it holds more than {MAX_TAKEN // 2 ** 20} MB; the first are taken")
                    return
                yield entry

    def skipped(self, why: str) -> None:
        """Part of it is not taken (`why`): it is kept, set aside, when released."""
        if not self.unread:
            self.unread = why
            log.warning("journal %s: %s", self.path, why)

    def _keep_torn(self, raw: bytes) -> None:
        damaged = self.path.with_suffix(".damaged")
        try:
            with open(damaged, "ab") as keep:
                keep.write(raw[:TORN_KEPT])
            kept = f"kept in {damaged}"
        except OSError as error:  # a full disk: the torn rest is no move anyone saw, the start goes on
            kept = f"it cannot be kept in {damaged} ({error.strerror})"
        log.warning("journal %s: its last line is torn (a write cut by a power failure?); %s", self.path, kept)

    def release(self) -> None:
        """Its entries are safe in this console's own journal: remove it, or set it aside (renamed,
        never deleted) when some of it could not be taken."""
        try:
            if not self.unread:
                self.path.unlink(missing_ok=True)
            else:
                aside = self.path.with_suffix(".set-aside")
                copy = 1
                while aside.exists():
                    copy += 1
                    aside = self.path.with_suffix(f".set-aside.{copy}")
                os.rename(self.path, aside)
                log.warning("journal %s could not be taken whole (%s): kept as %s", self.path, self.unread, aside)
        except OSError as error:
            log.warning("journal %s cannot be let go (%s)", self.path, error.strerror)
        os.close(self._fd)


def take_leftovers(directory: Path) -> list[Leftover]:
    """The journals of consoles that are no longer running, oldest first, each locked, so that no
    other console takes them too (read them with `entries()`)."""
    found = []
    try:
        paths = sorted(Path(directory).glob("journal-*.jsonl"), key=_mtime)
    except OSError as error:  # a name too long...: Journal() says it cannot make the directory
        log.warning("the state directory %s cannot be read (%s)", directory, error.strerror)
        return []
    for path in paths:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{path} is not a file")  # a FIFO... is no journal: left alone
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # a running console holds it
            continue
        found.append(Leftover(path, fd))
    return found


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def entry(kind: str, **fields: Any) -> dict:
    """One journal entry: `kind` is game, line, close or setting."""
    return {"op": kind, **fields}


_SHAPES: dict[str, dict[str, type | tuple[type, ...]]] = {
    "game": {"id": str, "started": (int, float), "version": str, "lines": list},
    "line": {"id": str, "line": str},
    "close": {"id": str, "ended": (int, float), "status": str, "fields": dict},
    "setting": {"name": str, "text": str},
}


def entry_problem(item: dict) -> str | None:
    """Why a journal entry (its checksum valid: written so, by this or a newer version) is not one
    this console can write to Redis, or None. Only its shape: the record lines are checked as the
    store checks what it reads from Redis."""
    shape = _SHAPES.get(item.get("op"))  # type: ignore[arg-type]
    if shape is None:
        return f"unknown kind {str(item.get('op'))[:20]!r}"
    for field, kind in shape.items():
        value = item.get(field)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"{item['op']} entry: {field} is {type(value).__name__}, not {getattr(kind, '__name__', 'a number')}"
    texts = [item.get("id", ""), *item.get("lines", ()), item.get("line", ""), item.get("status", ""),
             item.get("name", ""), item.get("text", ""), *item.get("fields", {}).keys(), *item.get("fields", {}).values()]
    if not all(isinstance(text, str) for text in texts):
        return f"{item['op']} entry: a line or field is not text"
    if not all(text.isascii() and text.isprintable() for text in (item.get("id", "x"), item.get("name", "x"))) \
            or not 0 < len(item.get("id", "x")) <= 100:
        return f"{item['op']} entry: the id or name is not short printable ASCII"
    if any("\ud800" <= ch <= "\udfff" for text in texts for ch in text):
        return f"{item['op']} entry: text that is not UTF-8"
    return None
