"""The local journal: every write of the store, fsynced to the console's own disk before the
panel shows its effect, so an acknowledged action survives a power cut whatever Redis is doing.

Redis is where games are kept; the journal is only the durable step in front of it. The store
appends each write (a game started, a record line, a game closed, a setting) here, then a writer
brings Redis up to date. Once Redis holds everything, the journal is rewritten down to the game
being played (so a console that boots with Redis down can still offer it), and a clean exit with
nothing left to write removes it.

One file per running console, `journal-<token>.jsonl` in the state directory, held with an
exclusive flock while it runs. A file nobody holds is what a crashed (or powered-off) console
left: the next console to start reads it and writes it to Redis. Each line is
`<crc32 in 8 hex digits> <JSON>`; a torn or damaged tail is cut at the first bad line, and what
was cut is kept beside it as `<file>.damaged` for inspection.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.store.format import JournalError

log = logging.getLogger(__name__)

MAX_JOURNAL_BYTES = 64 * 1024 * 1024  # far beyond any outage's worth of games: larger is damage


def default_state_dir(environ: dict[str, str] | None = None) -> Path:
    """systemd's $STATE_DIRECTORY (the unit's StateDirectory=), else ~/.local/state/hues-console."""
    environ = os.environ if environ is None else environ
    if environ.get("STATE_DIRECTORY"):
        return Path(environ["STATE_DIRECTORY"].split(":")[0])
    base = environ.get("XDG_STATE_HOME") or str(Path(environ.get("HOME", "~")).expanduser() / ".local" / "state")
    return Path(base) / "hues-console"


def encode_entry(entry: dict) -> bytes:
    text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
    return f"{zlib.crc32(text.encode()):08x} {text}\n".encode()


def decode_entries(data: bytes) -> tuple[list[dict], int]:
    """A journal's bytes -> its entries up to the first damaged line, and how many bytes were valid."""
    entries, valid = [], 0
    for raw in data.splitlines(keepends=True):
        if not raw.endswith(b"\n"):
            break  # torn: the power went in the middle of this write
        text = raw[9:-1]
        try:  # the exact text of the crc (int() would also take " 1f" or "1_f")
            ok = raw[8:9] == b" " and raw[:8] == b"%08x" % zlib.crc32(text)
            entry = json.loads(text) if ok else None
        except (ValueError, RecursionError):
            entry = None
        if not isinstance(entry, dict):
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
        self.path = self.directory / f"journal-{secrets.token_hex(8)}.jsonl"
        self._fd = self._open_locked(self.path)
        try:
            _fsync_directory(self.directory)  # the new file's name is on disk too, not only its data
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
            _fsync_directory(self.directory)
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
            _fsync_directory(self.directory)
        os.close(self._fd)


@dataclass
class Leftover:
    """A journal a console left behind when it stopped without writing everything to Redis."""

    path: Path
    entries: list[dict]
    _fd: int

    def release(self) -> None:
        """Its entries are safe in this console's own journal: remove it."""
        self.path.unlink(missing_ok=True)
        os.close(self._fd)


def take_leftovers(directory: Path) -> list[Leftover]:
    """The journals of consoles that are no longer running, oldest first, each read to its longest
    valid prefix and locked, so that no other console takes them too."""
    found = []
    try:
        paths = sorted(Path(directory).glob("journal-*.jsonl"), key=_mtime)
    except OSError as error:  # a name too long...: Journal() says it cannot make the directory
        log.warning("the state directory %s cannot be read (%s)", directory, error.strerror)
        return []
    for path in paths:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # a running console holds it
            continue
        found.append(Leftover(path, _read_leftover(path, fd), fd))
    return found


def _read_leftover(path: Path, fd: int) -> list[dict]:
    size = os.fstat(fd).st_size
    with open(fd, "rb", closefd=False) as handle:
        data = handle.read(min(size, MAX_JOURNAL_BYTES))
    entries, valid = decode_entries(data)
    if valid < size:
        damaged = path.with_suffix(".damaged")
        try:
            with open(damaged, "ab") as keep:
                keep.write(data[valid:])
            kept = f"the rest is kept in {damaged}"
        except OSError as error:  # a full disk: the damaged rest is no game anyway, the start goes on
            kept = f"the rest cannot be kept in {damaged} ({error.strerror})"
        log.warning("journal %s: damaged after %d entries (a write cut by a power failure?); %s",
                    path, len(entries), kept)
    return entries


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _fsync_directory(directory: Path) -> None:
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
