"""How the store makes each write durable and gets it into Redis: the journal first, then a
writer (a thread, or the app's frames) that brings Redis up to date in order, retrying with
back-off through outages, and setting aside keys of the wrong type on the way.

`GameStore` (games.py) builds on it with the game API; the key schema and the decisions are
described there.
"""

from __future__ import annotations

import collections
import logging
import math
from concurrent.futures import Future
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from console.store import journal as journaling
from console.store.format import JournalError, Keys, NotDurableError, StoreUrlError
from console.store.kept import KeptGames
from console.store.local import LocalCopies
from console.store.redis_games import Game, RedisGames, is_wrong_type

log = logging.getLogger("console.store.games")

CONNECT_TIMEOUT_S = 0.2
COMMAND_TIMEOUT_S = 0.5
WRITER_TIMEOUT_S = 3.0  # the writer thread waits out a stall of 2 s (a slow SD card) without an outage
FIRST_RETRY_S = 0.5
MAX_RETRY_S = 2.0  # a local server: never wait longer than this to try again
LEASE_RENEW_S = 5.0
WATCH_ATTEMPTS = 3
KEEP_GAMES = 1000
STORED_BYTES = "surrogateescape"
"""How the client decodes what Redis holds (and encodes it back): bytes that are not UTF-8 (written
by anything but the console) become lone surrogates instead of a UnicodeDecodeError in every read
that meets them, and go back to Redis as the same bytes, so a key named so can still be set aside.
What they are in is then damage like any other: not JSON, a failed checksum, an unknown game."""


def connect(url: str, timeout_s: float = COMMAND_TIMEOUT_S) -> redis.Redis:
    """A client for `url` that fails fast: short timeouts, and no retries of its own (we retry).

    The URL is checked where it is configured (console/config/store_url.py: check-config and
    the start say what is wrong in one line, exit 2), strictly enough that redis-py reads it the
    same way and no option overrides these timeouts; the store takes it as given. A URL
    redis-py cannot read at all is a StoreUrlError."""
    if url.startswith("memory://"):
        import fakeredis  # imported here: only the memory store needs it

        return fakeredis.FakeRedis(decode_responses=True, encoding_errors=STORED_BYTES)
    try:
        return redis.Redis.from_url(
            url, decode_responses=True, encoding_errors=STORED_BYTES, socket_connect_timeout=CONNECT_TIMEOUT_S,
            socket_timeout=timeout_s, retry=Retry(NoBackoff(), 0))
    except ValueError as error:
        raise StoreUrlError(f"store URL {url[:80]!r}: {error}") from None


class JournalledWriter(LocalCopies):
    """The durable write path of the game store (see the module docstring).

    `clock` dates games; `monotonic` and `sleep` time `flush` without a writer thread. `tick` runs
    retries and the lease on the `now` the app passes it when there is no writer thread
    (`background=False`: the memory store and tests). `client` replaces the connection made from
    `url`. `state_dir` holds the journal, the kept games and the console's identity (`owner`,
    the lease token; given, it replaces the kept one), and is held by this console alone
    (StateDirInUseError); None: no journal, and a new identity each time.
    """

    def __init__(self, url: str, prefix: str = "hues:", clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, client: redis.Redis | None = None, *,
                 state_dir: Path | None = None, background: bool = False, read_only: bool = False,
                 keep_games: int = KEEP_GAMES, owner: str | None = None):
        self.url = url
        self.read_only = read_only
        self._keys = Keys(prefix)
        self._clock = clock
        self._monotonic = monotonic
        self._sleep = sleep
        self._redis = client if client is not None else connect(
            url, WRITER_TIMEOUT_S if background else COMMAND_TIMEOUT_S)
        self._journal: journaling.Journal | None = None
        self._no_journal: JournalError | None = None  # why a journal was wanted but cannot be had
        self._state_lock: int | None = None
        if state_dir is not None and not read_only:
            try:
                self._state_lock = journaling.lock_state_dir(Path(state_dir))
            except JournalError as error:
                self._no_journal = error
        if owner is None:
            owner = journaling.console_identity(state_dir) if state_dir is not None else secrets.token_hex(16)
        self._io = RedisGames(self._redis, self._keys, owner, clock, keep_games)
        self._lock = threading.RLock()  # the backlog, the games and the journal
        self._attempt_lock = threading.RLock()  # one write attempt at a time; never taken under _lock
        self._written = threading.Condition(self._lock)
        # Journal entries not in Redis yet, each with its number: `_written_seq` is the highest
        # number written so far (everything before it is written too).
        self._backlog: collections.deque[tuple[int, dict]] = collections.deque()
        self._seq = self._written_seq = 0
        self._games: dict[str, Game] = {}  # the games the journal holds (unfinished, or closed but not kept yet)
        self._closes: dict[str, dict] = {}  # their close entries
        self._setting_items: dict[str, dict] = {}  # the latest entry of each setting
        self._kept: KeptGames | None = None
        self._game: Game | None = None
        self._settings: dict[str, Any] = {}
        self._online = True
        self._checked = False  # key types checked on this connection
        self._persistence_told = False
        self._redis_keeps = url.startswith("memory://")  # Redis fsyncs each write to its append-only file (checked on connecting; the memory store promises nothing)
        self._restore_due = False  # a new connection: check what Redis holds of the games kept here
        self.resume_checked = False  # unfinished() has looked in Redis (or has a game to offer)
        self._retry_delay = 0.0
        self._retry_at: float | None = None  # None: failed outside tick, back off from the next tick
        self._lease_due = 0.0
        self._journal_stale = False  # a journal write failed: rewrite it whole at the next chance
        self._changed: Callable[[], None] = lambda: None  # see `watch`
        self.journal_ok = self._no_journal is None
        if self._no_journal is not None:
            self._set_journal_ok(False, str(self._no_journal))
        elif state_dir is not None and not read_only:
            self._open_local(Path(state_dir))
        self._writer: threading.Thread | None = None
        self._stop = False
        self._wake = threading.Event()
        self._jobs: collections.deque[tuple[Callable[[Any], Any], Future]] = collections.deque()
        if background:  # the first connection too is the writer's: a stalled Redis never holds up the start
            self._writer = threading.Thread(target=self._write_loop, name="store-writer", daemon=True)
            self._wake.set()
            self._writer.start()
        else:
            self._attempt()

    # -- the game being played -------------------------------------------------------------------

    @property
    def online(self) -> bool:
        """False while Redis cannot be reached (or refuses writes): actions wait in the journal."""
        return self._online

    def watch(self, changed: Callable[[], None]) -> None:
        """Call `changed()`, from whichever thread finds it, when `online` or `journal_ok`
        changes: the app's loop sleeps through a still screen and is woken for it."""
        self._changed = changed

    def next_due(self) -> float:
        """When `tick` has work at a time of its own (without a writer thread: a retry after the
        back-off, the lease to renew); never with one, which does it itself."""
        if self._writer is not None:
            return math.inf
        if not self._online:
            return -math.inf if self._retry_at is None else self._retry_at
        return self._lease_due if self._game is not None and not self._backlog else math.inf

    def _set_online(self, online: bool) -> None:
        changed, self._online = online != self._online, online
        if changed:
            self._changed()

    @property
    def journal_path(self) -> Path | None:
        return None if self._journal is None else self._journal.path

    # -- writing: the journal first, then Redis ------------------------------------------------------

    def _record(self, item: dict, game: Game | None = None, commit: Callable[[], Any] | None = None,
                undo: Callable[[], Any] | None = None) -> None:
        """Make one write durable and queue it for Redis: a move is shown only once it is on disk
        somewhere. The journal first; `commit` changes the game in memory once the journal has
        the write, so the writer never puts in Redis what the journal does not hold yet. If the
        journal cannot take it, Redis must, at once, and only a Redis that fsyncs each write to
        its append-only file counts; else the write is dropped again, `undo` reverts `commit`,
        and NotDurableError."""
        commit = commit or (lambda: None)
        with self._lock:
            if game is not None:
                self._games[game.id] = game
            problem = self._no_journal
            if self._journal is not None:
                try:
                    if self._journal_stale:
                        self._journal.rewrite(self._snapshot() + [item])
                    else:
                        self._journal.append(item)
                    self._journal_stale = False
                    self._set_journal_ok(True)
                except JournalError as error:
                    self._journal_stale = True
                    self._set_journal_ok(False, str(error))
                    problem = error
            if problem is None:
                commit()
                self._note(item)
                self._queue(item)
        if problem is None:
            self._kick()
            return
        # Only Redis can keep it. The writer is held off while the game takes the move and the
        # write is queued: it must never find the write queued and the game without it.
        with self._attempt_lock:
            with self._lock:
                commit()
                seq = self._queue(item)
            if self._online and self._redis_fsyncs() and self._attempt():
                with self._lock:
                    self._note(item)
                return
            with self._lock:
                if self._written_seq >= seq:  # written, then a later write failed
                    self._note(item)
                    return
                self._backlog = collections.deque(p for p in self._backlog if p[0] != seq)
                if undo is not None:
                    undo()
        raise NotDurableError(f"{problem}, and the game store {self.url} cannot take it either")

    def _queue(self, item: dict) -> int:
        """Put a journal entry on the backlog (under `_lock`); its number."""
        self._seq += 1
        self._backlog.append((self._seq, item))
        return self._seq

    def _redis_fsyncs(self) -> bool:
        """Whether a write Redis acknowledges is on its disk (appendonly yes, appendfsync always)."""
        try:
            self._check_store()
        except redis.RedisError as error:
            self._fail(error)
            return False
        return self._redis_keeps

    def _set_journal_ok(self, ok: bool, problem: str = "") -> None:
        if ok and not self.journal_ok:
            log.warning("the journal can be written again")
        elif not ok and self.journal_ok:
            log.warning("%s: moves are kept only while the game store takes them", problem)
        changed, self.journal_ok = ok != self.journal_ok, ok
        if changed:
            self._changed()

    def _kick(self) -> None:
        if self._writer is not None:
            self._wake.set()
        elif self._online:
            self._attempt()

    # -- Redis: the writer -------------------------------------------------------------------------

    def _attempt(self) -> bool:
        """Write the backlog in order (or PING when it is empty); go online, or back off. On a new
        connection, first give Redis back what it lost of the games kept here."""
        with self._attempt_lock:
            try:
                if not self._backlog:
                    self._redis.ping()
                self._check_store()
                if self._restore_due and not self.read_only:
                    self._restore()
                    self._restore_due = False
                while True:
                    with self._lock:
                        if not self._backlog:
                            break
                        seq, item = self._backlog[0]
                    self._with_repair(lambda: self._apply(item), item.get("id"))
                    with self._lock:
                        if self._backlog and self._backlog[0][0] == seq:
                            self._backlog.popleft()
                            self._written_seq = max(self._written_seq, seq)
                        self._written.notify_all()
                    if item["op"] == "close":
                        self._keep_closed(item["id"])
            except redis.RedisError as error:
                self._fail(error)
                return False
            except Exception as error:  # damage nobody foresaw: logged, retried, never the writer's end
                log.error("game store %s: %s writing to it (%s); trying again", self.url,
                          error.__class__.__name__, error)
                self._fail(error)
                return False
        if not self._online:
            log.warning("game store %s is reachable again; the backlog is written", self.url)
        self._set_online(True)
        self._retry_delay = 0.0
        return True

    def _apply(self, item: dict) -> None:
        op = item["op"]
        for attempt in range(1, WATCH_ATTEMPTS + 1):
            try:
                if op in ("game", "line"):
                    if item["id"] in self._games:  # else kept whole already
                        self._io.write_record(self._games[item["id"]])
                elif op == "close":
                    self._io.close_game(item["id"], item["ended"], item["status"], item["fields"])
                else:
                    self._io.write_setting(item["name"], item["text"])
                return
            except redis.WatchError:  # a key changed under us: read it again
                if attempt == WATCH_ATTEMPTS:
                    raise

    def _with_repair(self, action: Callable[[], Any], game_id: str | None = None) -> Any:
        """Run `action`; a key of the wrong type is set aside (one log line) and it runs once more."""
        try:
            return action()
        except redis.ResponseError as error:
            if not is_wrong_type(error) or self.read_only:
                raise
            if not self._io.repair_types(() if game_id is None else (game_id,)):
                raise
            return action()

    def _check_store(self) -> None:
        """On each new connection: set aside shared keys of the wrong type; say if Redis does not persist."""
        with self._attempt_lock:
            if self._checked:
                return
            if not self.read_only:
                self._io.repair_types()
            if not self.url.startswith("memory://"):
                problems = self._io.persistence_problems()
                self._redis_keeps = not problems
                for problem in problems if not self._persistence_told else ():
                    log.warning("game store %s: %s", self.url, problem)
                self._persistence_told = True
            self._checked = True
            self._restore_due = True

    def _fail(self, error: Exception) -> None:
        if self._online and not self.read_only:  # a read command says so itself, in one line
            if isinstance(error, (redis.AuthenticationError, redis.exceptions.AuthorizationError,
                                  redis.exceptions.NoPermissionError)):
                log.error("game store %s refuses the console (%s): check store.url and the console's user "
                          "in config/redis-hues.conf; keeping actions in the journal meanwhile", self.url, error)
            else:
                log.warning("game store %s is unreachable (%s); keeping actions in the journal", self.url, error)
        self._retry_delay = FIRST_RETRY_S if self._online else min(self._retry_delay * 2, MAX_RETRY_S)
        self._retry_at = None
        self._set_online(False)
        self._checked = False

    def later(self, job: Callable[[Any], Any]) -> Future:
        """Run `job(store)` where waiting on Redis holds up nothing: on the writer thread, after
        the writes queued before it (so it reads what they wrote). Without a writer thread (the
        memory store, tests) it runs at once. The frame loop asks the store through this only:
        a slow or stalled Redis never holds up a frame."""
        future: Future = Future()
        if self._writer is None:
            self._run_job(job, future)
            return future
        with self._lock:
            self._jobs.append((job, future))
        self._wake.set()
        return future

    def _run_job(self, job: Callable[[Any], Any], future: Future) -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            with self._attempt_lock:
                result = job(self)
        except Exception as error:  # the asker decides what an error means
            future.set_exception(error)
        else:
            future.set_result(result)

    def _run_jobs(self) -> None:
        while True:
            with self._lock:
                if not self._jobs:
                    return
                job, future = self._jobs.popleft()
            self._run_job(job, future)

    def _write_loop(self) -> None:
        while not self._stop:
            self._wake.wait(self._retry_delay if not self._online else LEASE_RENEW_S)
            self._wake.clear()
            if self._stop:
                break
            if self._attempt():
                self._renew_lease(self._monotonic())
            self._run_jobs()

    def _renew_lease(self, now: float) -> None:
        game = self._game
        if game is None or now < self._lease_due or self._backlog:
            return
        self._lease_due = now + LEASE_RENEW_S
        try:
            if not self._io.take_lease(game.id):
                log.warning("game %s is now claimed by another console", game.id)
        except redis.RedisError as error:
            self._fail(error)

    def tick(self, now: float) -> None:
        """Called every frame (cheap). Without a writer thread: retry after the back-off, renew the lease."""
        if self._writer is not None:
            return
        if self._online:
            self._renew_lease(now)
            return
        if self._retry_at is None:
            self._retry_at = now + self._retry_delay
        elif now >= self._retry_at and not self._attempt():
            self._retry_at = now + self._retry_delay

    def flush(self, timeout_s: float) -> bool:
        """Write the backlog, retrying for up to `timeout_s` (exit, SIGTERM); True if all written.
        What is not written stays in the journal for the next start (and is logged).

        Call it from the app loop, not from inside a signal handler: a handler can interrupt a write.
        """
        if self._writer is not None:
            self._wake.set()
            with self._lock:
                done = self._written.wait_for(lambda: not self._backlog, timeout_s)
        else:
            deadline = self._monotonic() + timeout_s
            done = True
            while self._backlog and not self._attempt():
                remaining = deadline - self._monotonic()
                if remaining <= 0:
                    done = False
                    break
                self._sleep(min(self._retry_delay, remaining))
        if not done:
            kept = f"kept in the journal {self.journal_path} for the next start" if self._journal \
                else "LOST: there is no journal"
            log.error("game store %s: %d writes could not be written in %.1f s; %s",
                      self.url, len(self._backlog), timeout_s, kept)
        return done

    def close(self) -> None:
        """Stop the writer and let the connection go (call flush first to write the backlog)."""
        if self._writer is not None:
            self._stop = True
            self._wake.set()
            self._writer.join(WRITER_TIMEOUT_S + 1)
            with self._lock:
                for _, future in self._jobs:
                    future.cancel()
                self._jobs.clear()
        if self._journal is not None:  # it stays while it holds a game not safe elsewhere
            with self._lock:
                if self._games or self._backlog:
                    self._compact()
                self._journal.close(remove=not self._backlog and not self._games and self.journal_ok)
        if self._state_lock is not None:
            os.close(self._state_lock)
            self._state_lock = None
        self._redis.close()

    def _reading(self, action: Callable[[], Any], fallback: Any) -> Any:
        """Run a read on Redis; a failure takes the store offline and gives `fallback`."""
        try:
            self._check_store()
            return self._with_repair(action)
        except redis.ResponseError as error:
            if not (self.read_only and is_wrong_type(error)):
                self._fail(error)
            else:  # a read-only store sets nothing aside: it says which key is wrong and reads on
                try:
                    wrong = ", ".join(f"{key} is a {found}, not a {kind}"
                                      for key, found, kind in self._io.wrong_types())
                except redis.RedisError:
                    wrong = ""
                log.warning("game store %s: %s", self.url, wrong or error)
            return fallback
        except redis.RedisError as error:
            self._fail(error)
            return fallback
