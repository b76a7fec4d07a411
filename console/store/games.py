"""The game record, so that a power cut, a crash, a full disk or a Redis restart never loses a move.

Every accepted action is made durable before the panel shows its effect: it is appended to the
local journal (fsynced; `journal.py`) and then written to Redis by a writer thread, so a slow or
absent Redis never holds up a frame. When Redis is down the console plays on: writes wait in the
backlog (the journal entries Redis has not taken yet), `online` turns False (the UI shows a small
warning), and the writer retries on every new write and otherwise with back-off up to 2 s. A
journal left by a console that died is taken over by the next one and written to Redis then.

URL: `redis://host:port/db`, `unix:///path/to.sock` (or `rediss://`) for a real server;
`memory://` for an in-process fakeredis: the same code path, nothing kept after the process ends.

Key schema (P is the prefix, default `hues:`):

    P playing                 zset    ids of unfinished games, scored by P order when they began
    P game:<id>:record        list    the record: element i is action i, element 0 is new_game;
                                      version 2 `<chain> <JSON>` (see format.RECORD_VERSION),
                                      version 1 plain JSON; `export` prints the JSON alone
    P game:<id>:meta          hash    version, started, status (playing | finished | abandoned),
                                      ended, summary (JSON, finished games), reason (abandoned)
    P game:<id>:lease         string  the console playing it (expires unless renewed)
    P history                 zset    ids of finished and abandoned games, scored by P order
    P order                   string  a counter: the order of games, never the (settable) clock
    P settings                hash    setting name -> JSON value (brightness...)
    P quarantine:<what>@<time>:...    whatever was set aside (RENAMEd, never deleted) and :reason
    P current                 string  (read only) the unfinished game of a store from before `playing`

Decisions:
- Game ids are 128 random bits: made without Redis and without the clock, so they never collide.
- A stored unfinished game is only closed by the host's choice (`abandon` after the resume offer,
  or finishing it). A new game started while Redis was down leaves the stored one unfinished; it
  is offered again when no game is under way.
- A console owns the game it plays with a lease renewed every few seconds; `unfinished` leaves a
  game leased by another console alone (and says so). The lease token is kept in the state
  directory, so the same console after a crash or power cut takes its own game straight back.
- What cannot be read back (bad JSON, a broken checksum chain, an unknown version, a bad summary,
  a setting nested too deep, a key of the wrong Redis type) is set aside under `quarantine:` with
  one log line. A record damaged part-way is cut back to its longest valid prefix; only the tail
  goes to quarantine. Read-only stores (the `history` and `export` commands) set nothing aside.
- A write Redis refuses (disk full: MISCONF, out of memory) is treated like an outage; the journal
  keeps it. If the journal cannot be written either, `append` raises NotDurableError and the app
  does not show the move (`journal_ok` is False so the panel can say so).
"""

from __future__ import annotations

import collections
import json
import logging
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from console.store import journal as journaling
from console.store.format import (  # the errors are part of this module's API
    ABANDONED, FINISHED, PLAYING, CorruptRecordError, GameNotFoundError, JournalError, Keys,
    NoCurrentGameError, NotDurableError, NotStorableError, StoreError, StoreOfflineError, StoreUrlError,
    encode_action, encode_value, format_date, history_line, load_setting, new_game_id, stored_time,
)
from console.store.redis_games import Game, RedisGames, is_wrong_type

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 0.2
COMMAND_TIMEOUT_S = 0.5
WRITER_TIMEOUT_S = 3.0  # the writer thread waits out a stall of 2 s (a slow SD card) without an outage
FIRST_RETRY_S = 0.5
MAX_RETRY_S = 2.0  # a local server: never wait longer than this to try again
LEASE_RENEW_S = 5.0
WATCH_ATTEMPTS = 3
KEEP_GAMES = 1000


def connect(url: str, timeout_s: float = COMMAND_TIMEOUT_S) -> redis.Redis:
    """A client for `url` that fails fast: short timeouts, and no retries of its own (we retry)."""
    if url.startswith("memory://"):
        import fakeredis  # imported here: only the memory store needs it

        return fakeredis.FakeRedis(decode_responses=True)
    if url.partition("://")[0] not in ("redis", "rediss", "unix"):
        raise StoreUrlError(f"store URL {url!r}: use redis://host:port/db, unix:///path.sock or memory://")
    try:
        return redis.Redis.from_url(
            url, decode_responses=True, socket_connect_timeout=CONNECT_TIMEOUT_S,
            socket_timeout=timeout_s, retry=Retry(NoBackoff(), 0))
    except ValueError as error:
        raise StoreUrlError(f"store URL {url!r}: {error}") from None


def console_identity(state_dir: Path) -> str:
    """This console's lease token, kept in its state directory so that it outlives a crash."""
    path = Path(state_dir) / "console-id"
    try:
        token = path.read_text().strip()
        if len(token) == 32 and all(c in "0123456789abcdef" for c in token):
            return token
    except OSError:
        pass
    token = secrets.token_hex(16)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_text(token + "\n")
    except OSError as error:
        log.warning("cannot keep the console's identity in %s (%s)", path, error.strerror)
    return token


class GameStore:
    """The game record store; see the module docstring for the key schema and the rules.

    `clock` dates games; `monotonic` and `sleep` time `flush` without a writer thread. `tick` runs
    retries and the lease on the `now` the app passes it when there is no writer thread
    (`background=False`: the memory store and tests). `client` replaces the connection made from
    `url`. `state_dir` holds the journal and the console's identity (`owner`, the lease token;
    given, it replaces the kept one); None: no journal, and a new identity each time.
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
        if owner is None:
            owner = console_identity(state_dir) if state_dir is not None else secrets.token_hex(16)
        self._io = RedisGames(self._redis, self._keys, owner, clock, keep_games)
        self._lock = threading.RLock()  # the backlog, the games and the journal
        self._attempt_lock = threading.RLock()  # one write attempt at a time; never taken under _lock
        self._written = threading.Condition(self._lock)
        self._backlog: collections.deque[dict] = collections.deque()  # journal entries not in Redis yet
        self._games: dict[str, Game] = {}  # the games the backlog writes, by id
        self._game: Game | None = None
        self._settings: dict[str, Any] = {}
        self._online = True
        self._checked = False  # key types checked on this connection
        self._persistence_told = False
        self.resume_checked = False  # unfinished() has looked in Redis (or has a game to offer)
        self._retry_delay = 0.0
        self._retry_at: float | None = None  # None: failed outside tick, back off from the next tick
        self._lease_due = 0.0
        self._journal: journaling.Journal | None = None
        self._journal_stale = False  # a journal write failed: rewrite it whole at the next chance
        self.journal_ok = True
        if state_dir is not None and not read_only:
            self._open_journal(Path(state_dir))
        self._attempt()
        self._writer: threading.Thread | None = None
        self._stop = False
        self._wake = threading.Event()
        if background:
            self._writer = threading.Thread(target=self._write_loop, name="store-writer", daemon=True)
            self._writer.start()

    # -- the game being played -------------------------------------------------------------------

    @property
    def online(self) -> bool:
        """False while Redis cannot be reached (or refuses writes): actions wait in the journal."""
        return self._online

    @property
    def journal_path(self) -> Path | None:
        return None if self._journal is None else self._journal.path

    def start_game(self, new_game: dict) -> str:
        """Start recording a game from its new_game action; returns the game id."""
        line = encode_action(new_game)
        if new_game["action"] != "new_game":
            raise NotStorableError(f"a game starts with a new_game action, not {new_game['action']!r}")
        game = Game(new_game_id(), [], self._clock())
        game.lines.append(game.next_line(line))
        with self._lock:
            if not self._backlog and self._journal is not None:
                self._compact(keep_game=False)
        self._record(self._snapshot_entry(game), game)
        self._game = game
        return game.id

    def append(self, action: dict) -> None:
        """Record one accepted action, durably: NotDurableError (and nothing changed) if neither
        the journal nor Redis could take it. Never waits for a slow or absent Redis."""
        game = self._current_game()
        element = game.next_line(encode_action(action))
        self._record(journaling.entry("line", id=game.id, line=element), game,
                     commit=lambda: game.lines.append(element), undo=game.lines.pop)

    def unfinished(self) -> tuple[str, list[dict]] | None:
        """The unfinished game to resume (id, actions), or None; further appends go to it.
        While Redis cannot be reached it is None and `resume_checked` stays False: ask again."""
        if self._game is not None:
            self.resume_checked = True
            return self._game.id, self._actions(self._game)
        if not self._online:
            return None
        found = self._reading(self._find_unfinished, None)
        if self._online:
            self.resume_checked = True
        return found

    def _find_unfinished(self) -> tuple[str, list[dict]] | None:
        for game_id in self._io.playing_ids():
            holder = self._io.lease_holder(game_id)
            if holder not in (None, self._io.owner):
                log.warning("game %s is being played by another console on %s: leaving it alone",
                            game_id, self.url)
                continue
            try:
                meta, decoded = self._io.read_game(game_id)
            except (CorruptRecordError, GameNotFoundError) as problem:
                self._quarantine(game_id, str(problem))
                continue
            if meta.get("status") != PLAYING:
                self._redis.zrem(self._keys.playing, game_id)  # closed already: only the index was stale
                continue
            if decoded.problem and not self.read_only:
                where = self._io.cut_record(game_id, len(decoded.lines), decoded.problem)
                log.warning("game %s cut back to its first %d actions: %s; the rest is kept as %s",
                            game_id, len(decoded.lines), decoded.problem, where)
            if self.read_only or not self._io.take_lease(game_id):
                continue
            game = Game(game_id, list(decoded.lines), stored_time(meta, "started"), meta["version"])
            try:
                self._record(self._snapshot_entry(game), game)
            except NotDurableError as error:
                log.warning("game %s: %s", game_id, error)  # it is in Redis already
            self._game = game
            return game_id, decoded.actions
        return None

    def cut_back(self, keep: int, reason: str) -> None:
        """The game offered for resume replays only up to action `keep` (the rules refuse the next
        one): cut its record there, the rest going to quarantine, and go on from there."""
        game = self._current_game()
        with self._lock:
            del game.lines[keep:]
        try:
            self._record(self._snapshot_entry(game), game)
        except NotDurableError:
            pass  # the cut is redone at the next start
        self._reading(lambda: log.warning("game %s cut back to its first %d actions: %s; the rest is "
                                          "kept as %s", game.id, keep, reason,
                                          self._io.cut_record(game.id, keep, reason)), None)

    def finish(self, summary: dict) -> None:
        """Close the game into the history; `summary` (players, colours, scores, winners) gets a date."""
        game = self._current_game()
        ended = self._clock()
        text = encode_value("the game summary", {**summary, "date": format_date(ended)})
        self._close(game, FINISHED, {"summary": text}, ended)

    def abandon(self) -> None:
        """The host chose a new game over resuming: the old record stays, in history, as abandoned."""
        if self._game is not None:
            self._close(self._game, ABANDONED, {"reason": "abandoned by the host"}, self._clock())

    def _close(self, game: Game, status: str, fields: dict[str, str], ended: float) -> None:
        self._game = None
        try:
            self._record(journaling.entry("close", id=game.id, ended=ended, status=status,
                                          fields=fields), game)
        except NotDurableError as error:
            log.warning("game %s: %s; it is closed at the next start", game.id, error)

    # -- writing: the journal first, then Redis ------------------------------------------------------

    def _record(self, item: dict, game: Game | None = None, commit: Callable[[], Any] | None = None,
                undo: Callable[[], Any] | None = None) -> None:
        """Make one write durable (the journal, else Redis at once) and queue it for Redis.
        `commit` changes the game in memory once the journal has the write, so the writer never
        puts in Redis what the journal does not hold yet. If neither the journal nor Redis takes
        it, the write is dropped again, `undo` reverts `commit`, and NotDurableError."""
        commit = commit or (lambda: None)
        with self._lock:
            if game is not None:
                self._games[game.id] = game
            problem = None
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
            self._backlog.append(item)
            if problem is None:
                commit()
        if problem is None:
            self._kick()
            return
        with self._attempt_lock:  # the writer is not in the middle of a write now
            commit()
            if self._online and self._attempt():
                return
            with self._lock:
                if any(pending is item for pending in self._backlog):
                    self._backlog = collections.deque(p for p in self._backlog if p is not item)
                    if undo is not None:
                        undo()
                else:
                    return  # written after all
        raise NotDurableError(f"{problem}, and the game store {self.url} cannot take it either")

    def _set_journal_ok(self, ok: bool, problem: str = "") -> None:
        if ok and not self.journal_ok:
            log.warning("the journal can be written again")
        elif not ok and self.journal_ok:
            log.warning("%s: moves are kept only while the game store takes them", problem)
        self.journal_ok = ok

    def _kick(self) -> None:
        if self._writer is not None:
            self._wake.set()
        elif self._online:
            self._attempt()

    def _snapshot_entry(self, game: Game) -> dict:
        return journaling.entry("game", id=game.id, started=game.started, version=game.version,
                                lines=list(game.lines))

    def _snapshot(self) -> list[dict]:
        """What the journal must hold: the backlog (each game whole) and the game being played."""
        entries, seen = [], set()
        for item in self._backlog:
            if item["op"] in ("game", "line"):
                if item["id"] not in seen:
                    seen.add(item["id"])
                    entries.append(self._snapshot_entry(self._games[item["id"]]))
            else:
                entries.append(item)
        if self._game is not None and self._game.id not in seen:
            entries.append(self._snapshot_entry(self._game))
        return entries

    def _compact(self, keep_game: bool = True) -> None:
        try:
            self._journal.rewrite(self._snapshot() if keep_game else [])
            self._journal_stale = False
        except JournalError as error:
            self._set_journal_ok(False, str(error))

    def _open_journal(self, directory: Path) -> None:
        try:
            leftovers = journaling.take_leftovers(directory)
            self._journal = journaling.Journal(directory)
        except JournalError as error:
            self._set_journal_ok(False, str(error))
            return
        for leftover in leftovers:
            for item in leftover.entries:
                self._take_over(item)
            try:
                self._journal.rewrite(self._snapshot())
            except JournalError as error:
                self._set_journal_ok(False, str(error))
                return  # keep the leftover: it is the only copy on disk
            log.warning("taking over %d writes of a console that stopped early (%s)",
                        len(leftover.entries), leftover.path)
            leftover.release()

    def _take_over(self, item: dict) -> None:
        """Replay one entry of a leftover journal into this store's memory and backlog."""
        try:
            op, game_id = item["op"], item.get("id")
            if op == "game":
                game = Game(game_id, [str(line) for line in item["lines"]], float(item["started"]),
                            str(item["version"]))
                self._games[game_id], self._game = game, game
            elif op == "line":
                self._games[game_id].lines.append(str(item["line"]))
            elif op == "close":
                if self._game is not None and self._game.id == game_id:
                    self._game = None
            elif op == "setting":
                self._settings[item["name"]] = load_setting(item["text"])
            else:
                raise KeyError(op)
        except (KeyError, TypeError, ValueError, CorruptRecordError) as problem:
            log.warning("a journal entry cannot be read (%r): skipped", problem)
            return
        self._backlog.append(item)

    # -- Redis: the writer -------------------------------------------------------------------------

    def _attempt(self) -> bool:
        """Write the backlog in order (or PING when it is empty); go online, or back off."""
        with self._attempt_lock:
            try:
                if not self._backlog:
                    self._redis.ping()
                self._check_store()
                while True:
                    with self._lock:
                        if not self._backlog:
                            break
                        item = self._backlog[0]
                    self._with_repair(lambda: self._apply(item), item.get("id"))
                    with self._lock:
                        if self._backlog and self._backlog[0] is item:
                            self._backlog.popleft()
                        self._written.notify_all()
            except redis.RedisError as error:
                self._fail(error)
                return False
        if not self._online:
            log.warning("game store %s is reachable again; the backlog is written", self.url)
        self._online = True
        self._retry_delay = 0.0
        return True

    def _apply(self, item: dict) -> None:
        op = item["op"]
        for attempt in range(1, WATCH_ATTEMPTS + 1):
            try:
                if op in ("game", "line"):
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
            moved = self._io.repair_types(() if game_id is None else (game_id,))
            for line in moved:
                log.warning("game store %s: %s", self.url, line)
            if not moved:
                raise
            return action()

    def _check_store(self) -> None:
        """On each new connection: set aside shared keys of the wrong type; say if Redis does not persist."""
        with self._attempt_lock:
            if self._checked:
                return
            if not self.read_only:
                for line in self._io.repair_types():
                    log.warning("game store %s: %s", self.url, line)
            if not self.url.startswith("memory://") and not self._persistence_told:
                for problem in self._io.persistence_problems():
                    log.warning("game store %s: %s", self.url, problem)
                self._persistence_told = True
            self._checked = True

    def _fail(self, error: Exception) -> None:
        if self._online:
            log.warning("game store %s is unreachable (%s); keeping actions in the journal", self.url, error)
        self._retry_delay = FIRST_RETRY_S if self._online else min(self._retry_delay * 2, MAX_RETRY_S)
        self._retry_at = None
        self._online = False
        self._checked = False

    def _write_loop(self) -> None:
        while not self._stop:
            self._wake.wait(self._retry_delay if not self._online else LEASE_RENEW_S)
            self._wake.clear()
            if self._stop:
                break
            if self._attempt():
                self._renew_lease(self._monotonic())

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
        if self._journal is not None:
            self._journal.close(remove=not self._backlog and self.journal_ok)
        self._redis.close()

    # -- settings ----------------------------------------------------------------------------------

    def get_setting(self, name: str, default: Any = None) -> Any:
        """A setting kept across reboots (brightness...), or `default` when unset or unreachable."""
        if name in self._settings:
            return self._settings[name]
        if not self._online:
            return default
        text = self._reading(lambda: self._io.read_setting(name), None)
        if text is None:
            return default
        try:
            value = load_setting(text)
        except CorruptRecordError as problem:
            where = "" if self.read_only else "; set aside as " + self._reading(
                lambda: self._io.set_aside_setting(name, text, str(problem)), "?")
            log.warning("setting %r in %s: %s; using %r%s", name, self._keys.settings, problem, default, where)
            return default
        self._settings[name] = value
        return value

    def set_setting(self, name: str, value: Any) -> None:
        """Keep a setting; like append, journalled and written when Redis takes it."""
        text = encode_value(f"setting {name!r}", value)
        self._settings[name] = load_setting(text)
        try:
            self._record(journaling.entry("setting", name=name, text=text))
        except NotDurableError as error:
            log.warning("setting %r: %s", name, error)

    # -- reading stored games ------------------------------------------------------------------------

    def history(self, limit: int = 20) -> list[dict]:
        """Finished and abandoned games, newest first (see `format.history_entry`); what cannot be
        read is left out (and set aside). Empty while Redis cannot be reached (`online` False)."""
        if not self._online:
            return []
        return self._reading(lambda: self._io.history(limit, self._quarantine), [])

    def export(self, game_id: str | None = None) -> list[dict]:
        """A game's record as action dicts, exactly the replay format; default the latest game."""
        game = self._game
        if game is not None and game_id in (None, game.id):
            return self._actions(game)
        try:
            if game_id is None:
                game_id = self._with_repair(self._io.latest_game_id)
            _, decoded = self._io.read_game(game_id)
            if decoded.problem:
                log.warning("game %s: %s; exported up to there", game_id, decoded.problem)
            return decoded.actions
        except GameNotFoundError as error:
            raise GameNotFoundError(f"{error} in {self.url}") from None
        except CorruptRecordError as problem:
            raise CorruptRecordError(f"game {game_id} cannot be read: {problem}") from None
        except redis.RedisError as error:
            self._fail(error)
            raise StoreOfflineError(f"the game store {self.url} cannot be reached ({error})") from None

    def set_aside(self, game_id: str, reason: str) -> None:
        """Move a stored game out of the way, e.g. one the rules cannot replay; it is kept for inspection."""
        if self._game is not None and self._game.id == game_id:
            self._game = None
        self._reading(lambda: self._quarantine(game_id, reason), None)

    # -- internals -----------------------------------------------------------------------------------

    def _current_game(self) -> Game:
        if self._game is None:
            raise NoCurrentGameError("no game is being recorded: call start_game() or unfinished() first")
        return self._game

    @staticmethod
    def _actions(game: Game) -> list[dict]:
        return [json.loads(text) for text in game.texts()]

    def _reading(self, action: Callable[[], Any], fallback: Any) -> Any:
        """Run a read on Redis; a failure takes the store offline and gives `fallback`."""
        try:
            self._check_store()
            return self._with_repair(action)
        except redis.RedisError as error:
            self._fail(error)
            return fallback

    def _quarantine(self, game_id: str, reason: str) -> None:
        if self.read_only:
            log.warning("game %s cannot be read: %s", game_id, reason)
            return
        self._io.set_aside(game_id, reason)


__all__ = [
    "GameStore", "StoreError", "CorruptRecordError", "GameNotFoundError", "NoCurrentGameError",
    "NotDurableError", "NotStorableError", "StoreOfflineError", "StoreUrlError", "history_line",
]
