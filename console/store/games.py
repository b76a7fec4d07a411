"""The game record in Redis, so that a power cut, a crash or a Redis restart never loses a game.

Every accepted action is written before the panel shows its effect. When Redis is down the console
plays on: writes wait in an in-memory backlog, `online` turns False (the UI shows a small warning),
and `tick` retries with exponential back-off until Redis is back and the backlog is written in order.

URL: `redis://host:port/db` (or `rediss://`, `unix://`) for a real server; `memory://` for an
in-process fakeredis: the same code path, nothing kept after the process ends.

Key schema (P is the prefix, default `hues:`):

    P current                 string  id of the game being played; absent between games
    P game:<id>:record        list    the record: element i is action i as one JSON line, element 0 is
                                      new_game; exactly the lines `hues-console export` prints
    P game:<id>:meta          hash    version (record format, "1"), started, status (playing |
                                      finished | abandoned), ended, summary (JSON, finished games),
                                      reason (abandoned games)
    P history                 zset    ids of finished and abandoned games, scored by when they ended
    P settings                hash    setting name -> JSON value (brightness...)
    P quarantine:<id>@<time>:record / :meta   a game set aside (RENAMEd, never deleted)
    P quarantine:<id>@<time>:reason           JSON: which game, why, when

Game ids are the local start time plus a random token (`20240501-193012-a3f0`): made without Redis,
so a game played while Redis is down has an id too.

Why a retried write cannot duplicate: a record write brings Redis's list up to the console's copy.
It WATCHes the list, reads LLEN n, checks that element n-1 is the console's line n-1, and RPUSHes
only lines n.. in MULTI/EXEC. If the reply of a write was lost, the retry finds LLEN already there
and pushes nothing; if Redis lost lines (a restart without its AOF), the missing ones are pushed
again, and a record found empty gets its meta and `current` back. (WATCH/MULTI, not a Lua script:
fakeredis runs Lua only with lupa installed.)
Closing a game (finish, abandon) and settings are plain HSET/ZADD: repeating them changes nothing.

Decisions:
- Redis down at start: `unfinished()` returns None, the host plays a new game in memory. When Redis
  comes back that game is written and becomes current; a game that was still unfinished in Redis is
  not overwritten but closed as `abandoned` ("replaced by game <id>"), its record kept in history.
  The same happens whenever a new game starts while another is current.
- A record that cannot be read back (bad JSON, not an action, first line not new_game, unknown
  format version, wrong Redis type) is renamed under `quarantine:` and logged; the game then is not offered for resume. Nothing is deleted.
- If Redis holds a different record under the id of a game being written (only possible if someone
  else wrote it), that copy is set aside the same way and the console's copy written.
- A write that Redis refuses (disk full: MISCONF, out of memory) is treated like an outage: kept in
  the backlog and retried with back-off.
"""

from __future__ import annotations

import collections
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from console.store.format import (  # the errors are part of this module's API
    ABANDONED, FINISHED, PLAYING, RECORD_VERSION, CorruptRecordError, GameNotFoundError, Keys,
    NoCurrentGameError, NotStorableError, StoreError, StoreOfflineError, StoreUrlError,
    decode_record, encode_action, encode_value, format_date, history_entry, history_line, new_game_id,
)

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 0.2
COMMAND_TIMEOUT_S = 0.5
FIRST_RETRY_S = 0.5
MAX_RETRY_S = 30.0
WATCH_ATTEMPTS = 3


def connect(url: str) -> redis.Redis:
    """A client for `url` that fails fast: short timeouts, and no retries of its own (we retry)."""
    if url.startswith("memory://"):
        import fakeredis  # imported here: only the memory store needs it

        return fakeredis.FakeRedis(decode_responses=True)
    if url.partition("://")[0] not in ("redis", "rediss", "unix"):
        raise StoreUrlError(f"store URL {url!r}: use redis://host:port/db or memory://")
    try:
        return redis.Redis.from_url(
            url, decode_responses=True, socket_connect_timeout=CONNECT_TIMEOUT_S,
            socket_timeout=COMMAND_TIMEOUT_S, retry=Retry(NoBackoff(), 0))
    except ValueError as error:
        raise StoreUrlError(f"store URL {url!r}: {error}") from None


@dataclass(eq=False)
class _Game:
    """The console's own copy of the game being played: the truth that Redis is brought up to."""

    id: str
    lines: list[str]
    started: float


class GameStore:
    """The game record store; see the module docstring for the key schema and the outage rules.

    `clock` dates games; `monotonic` and `sleep` time `flush`. The back-off of `tick` runs on the
    `now` the app passes it, whatever clock that is (a script's virtual clock works too). `client`
    replaces the connection made from `url` (tests pass fakeredis clients that decode to str).
    """

    def __init__(self, url: str, prefix: str = "hues:", clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, client: redis.Redis | None = None):
        self.url = url
        self._keys = Keys(prefix)
        self._clock = clock
        self._monotonic = monotonic
        self._sleep = sleep
        self._redis = client if client is not None else connect(url)
        self._backlog: collections.deque[tuple] = collections.deque()
        self._game: _Game | None = None
        self._settings: dict[str, Any] = {}
        self._online = True
        self._retry_delay = 0.0
        self._retry_at: float | None = None  # None: failed outside tick, back off from the next tick
        self._attempt()

    # -- the game being played -------------------------------------------------------------------

    @property
    def online(self) -> bool:
        """False while Redis cannot be reached (or refuses writes): actions wait in memory."""
        return self._online

    def start_game(self, new_game: dict) -> str:
        """Start recording a game from its new_game action; returns the game id."""
        line = encode_action(new_game)
        if new_game["action"] != "new_game":
            raise NotStorableError(f"a game starts with a new_game action, not {new_game['action']!r}")
        started = self._clock()
        self._game = _Game(new_game_id(started, secrets.token_hex(2)), [line], started)
        self._write(self._write_record, self._game)
        return self._game.id

    def append(self, action: dict) -> None:
        """Record one accepted action. Never raises or waits for long because Redis is down."""
        game = self._current_game()
        game.lines.append(encode_action(action))
        if not (self._backlog and self._backlog[-1] == (self._write_record, game)):
            self._write(self._write_record, game)

    def unfinished(self) -> tuple[str, list[dict]] | None:
        """The unfinished game to resume (id, actions), or None; further appends go to it."""
        if self._game is not None:
            return self._game.id, [json.loads(line) for line in self._game.lines]
        if not self._online:
            return None
        try:
            game_id = self._redis.get(self._keys.current)
            if game_id is None:
                return None
            try:
                meta, lines, actions = self._read_game(game_id)
            except (CorruptRecordError, GameNotFoundError) as problem:
                self._set_aside(game_id, str(problem))
                return None
        except redis.RedisError as error:
            self._fail(error)
            return None
        if meta.get("status") != PLAYING:
            return None
        self._game = _Game(game_id, lines, float(meta["started"]))
        return game_id, actions

    def finish(self, summary: dict) -> None:
        """Close the game into the history; `summary` (players, colours, scores, winners) gets a date."""
        game = self._current_game()
        ended = self._clock()
        text = encode_value("the game summary", {**summary, "date": format_date(ended)})
        self._game = None
        self._write(self._close_game, game.id, ended, FINISHED, {"summary": text})

    def abandon(self) -> None:
        """The host chose a new game over resuming: the old record stays, in history, as abandoned."""
        if self._game is None:
            return
        game, self._game = self._game, None
        self._write(self._close_game, game.id, self._clock(), ABANDONED, {"reason": "abandoned by the host"})

    # -- outages -----------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        """Called every frame (cheap): when offline and the back-off has passed, try Redis again."""
        if self._online:
            return
        if self._retry_at is None:
            self._retry_at = now + self._retry_delay
        elif now >= self._retry_at and not self._attempt():
            self._retry_at = now + self._retry_delay

    def flush(self, timeout_s: float) -> bool:
        """Write the backlog, retrying for up to `timeout_s` (shutdown, SIGTERM); True if all written.

        Call it from the app loop, not from inside a signal handler: a handler can interrupt a write.
        """
        deadline = self._monotonic() + timeout_s
        while self._backlog and not self._attempt():
            remaining = deadline - self._monotonic()
            if remaining <= 0:
                return False
            self._sleep(min(self._retry_delay, remaining))
        return True

    def close(self) -> None:
        """Release the connection (call flush first to write the backlog)."""
        self._redis.close()

    # -- settings ----------------------------------------------------------------------------------

    def get_setting(self, name: str, default: Any = None) -> Any:
        """A setting kept across reboots (brightness...), or `default` when unset or unreachable."""
        if name in self._settings:
            return self._settings[name]
        if not self._online:
            return default
        try:
            text = self._redis.hget(self._keys.settings, name)
        except redis.RedisError as error:
            self._fail(error)
            return default
        if text is None:
            return default
        try:
            value = json.loads(text)
        except ValueError:
            self._warn(f"setting {name!r} in {self._keys.settings} is not valid JSON; using {default!r}")
            return default
        self._settings[name] = value
        return value

    def set_setting(self, name: str, value: Any) -> None:
        """Keep a setting; like append, buffered while Redis is down."""
        text = encode_value(f"setting {name!r}", value)
        self._settings[name] = json.loads(text)
        self._write(self._write_setting, name, text)

    # -- reading stored games ------------------------------------------------------------------------

    def history(self, limit: int = 20) -> list[dict]:
        """Finished and abandoned games, newest first (see `store_format.history_entry`).

        Empty while Redis cannot be reached (then `online` is False): the caller never has to guard it.
        """
        keys = self._keys
        if not self._online:
            return []
        try:
            ids = self._redis.zrevrange(keys.history, 0, limit - 1)
            pipe = self._redis.pipeline(transaction=False)
            for game_id in ids:
                pipe.hgetall(keys.meta(game_id))
                pipe.llen(keys.record(game_id))
            replies = pipe.execute(raise_on_error=False)
        except redis.RedisError as error:
            self._fail(error)
            return []
        entries = []
        for game_id, meta, length in zip(ids, replies[::2], replies[1::2]):
            try:
                if isinstance(meta, redis.ResponseError) or isinstance(length, redis.ResponseError):
                    raise CorruptRecordError("its keys are not a hash and a list")
                entries.append(history_entry(game_id, meta, length))
            except CorruptRecordError as problem:
                self._warn(f"game {game_id} left out of the history: {problem}")
        return entries

    def export(self, game_id: str | None = None) -> list[dict]:
        """A game's record as action dicts, exactly the replay format; default the latest game.

        Reads only: a game it cannot read (a newer format version, damage) is reported and left
        where it is, so that the next `export` does not silently give another game."""
        game = self._game
        if game is not None and game_id in (None, game.id):
            return [json.loads(line) for line in game.lines]
        try:
            if game_id is None:
                game_id = self._latest_game_id()
            try:
                return self._read_game(game_id)[2]
            except CorruptRecordError as problem:
                raise CorruptRecordError(f"game {game_id} cannot be read: {problem}") from None
        except redis.RedisError as error:
            self._fail(error)
            raise StoreOfflineError(f"the game store {self.url} cannot be reached ({error})") from None

    def set_aside(self, game_id: str, reason: str) -> None:
        """Move a stored game out of the way, e.g. one the rules cannot replay; it is kept for inspection."""
        if self._game is not None and self._game.id == game_id:
            self._game = None
        try:
            self._set_aside(game_id, reason)
        except redis.RedisError as error:
            self._fail(error)
            self._warn(f"game {game_id} could not be set aside ({reason}): the store is unreachable")

    # -- internals -----------------------------------------------------------------------------------

    def _current_game(self) -> _Game:
        if self._game is None:
            raise NoCurrentGameError("no game is being recorded: call start_game() or unfinished() first")
        return self._game

    def _write(self, *entry: Any) -> None:
        """Queue one idempotent write (a method and its arguments); write the queue now if online."""
        self._backlog.append(entry)
        if self._online:
            self._attempt()

    def _attempt(self) -> bool:
        """Write the backlog in order (or PING when it is empty); go online, or back off."""
        try:
            if not self._backlog:
                self._redis.ping()
            while self._backlog:
                write, *args = self._backlog[0]
                for attempt in range(1, WATCH_ATTEMPTS + 1):
                    try:
                        write(*args)
                        break
                    except redis.WatchError:  # a key changed under us: read it again
                        if attempt == WATCH_ATTEMPTS:
                            raise
                self._backlog.popleft()
        except redis.RedisError as error:
            self._fail(error)
            return False
        if not self._online:
            log.warning("game store %s is reachable again; the backlog is written", self.url)
        self._online = True
        self._retry_delay = 0.0
        return True

    def _fail(self, error: Exception) -> None:
        if self._online:
            log.warning("game store %s is unreachable (%s); keeping actions in memory", self.url, error)
        self._retry_delay = FIRST_RETRY_S if self._online else min(self._retry_delay * 2, MAX_RETRY_S)
        self._retry_at = None
        self._online = False


    def _warn(self, message: str) -> None:
        log.warning("%s", message)

    def _write_record(self, game: _Game) -> None:
        if not self._push_missing_lines(game):
            self._set_aside(game.id, "it differs from the console's copy of the game")
            self._push_missing_lines(game)

    def _push_missing_lines(self, game: _Game) -> bool:
        """Bring Redis's record up to `game.lines`; False if Redis holds a different record."""
        keys, record = self._keys, self._keys.record(game.id)
        with self._redis.pipeline() as pipe:
            pipe.watch(record, keys.current)
            stored = pipe.llen(record)
            if stored > len(game.lines) or (
                    stored and pipe.lindex(record, stored - 1) != game.lines[stored - 1]):
                return False
            if stored == len(game.lines):
                return True
            # A new game, or one whose record Redis lost: (re)write its meta and make it current.
            replaced = pipe.get(keys.current) if stored == 0 else None
            replaced_playing = replaced not in (None, game.id) and (
                pipe.hget(keys.meta(replaced), "status") == PLAYING)
            pipe.multi()
            if stored == 0:
                pipe.hset(keys.meta(game.id), mapping={
                    "version": RECORD_VERSION, "started": game.started, "status": PLAYING})
                if replaced_playing:
                    self._queue_close(pipe, replaced, game.started, ABANDONED,
                                      {"reason": f"replaced by game {game.id}"})
                pipe.set(keys.current, game.id)
            pipe.rpush(record, *game.lines[stored:])
            pipe.execute()
        return True

    def _close_game(self, game_id: str, ended: float, status: str, fields: dict[str, str]) -> None:
        current = self._keys.current
        with self._redis.pipeline() as pipe:
            pipe.watch(current)
            is_current = pipe.get(current) == game_id
            pipe.multi()
            self._queue_close(pipe, game_id, ended, status, fields)
            if is_current:
                pipe.delete(current)
            pipe.execute()

    def _queue_close(self, pipe: redis.client.Pipeline, game_id: str, ended: float, status: str,
                     fields: dict[str, str]) -> None:
        pipe.hset(self._keys.meta(game_id), mapping={"status": status, "ended": ended, **fields})
        pipe.zadd(self._keys.history, {game_id: ended})

    def _write_setting(self, name: str, text: str) -> None:
        self._redis.hset(self._keys.settings, name, text)

    def _read_game(self, game_id: str) -> tuple[dict[str, str], list[str], list[dict]]:
        keys = self._keys
        pipe = self._redis.pipeline()
        pipe.hgetall(keys.meta(game_id))
        pipe.lrange(keys.record(game_id), 0, -1)
        meta, lines = pipe.execute(raise_on_error=False)
        if isinstance(meta, redis.ResponseError) or isinstance(lines, redis.ResponseError):
            raise CorruptRecordError("its meta is not a hash or its record is not a list")
        if not meta and not lines:
            raise GameNotFoundError(f"no game {game_id!r} is stored in {self.url}")
        return meta, lines, decode_record(meta, lines)

    def _latest_game_id(self) -> str:
        game_id = self._redis.get(self._keys.current)
        if game_id is None:
            newest = self._redis.zrevrange(self._keys.history, 0, 0)
            if not newest:
                raise GameNotFoundError(f"no game is stored in {self.url} yet")
            game_id = newest[0]
        return game_id

    def _set_aside(self, game_id: str, reason: str) -> str:
        """Rename a game's keys under quarantine: for inspection, never deleted; returns the new name."""
        keys = self._keys
        record, meta = keys.record(game_id), keys.meta(game_id)
        base = keys.quarantine(f"{game_id}@{int(self._clock())}")
        with self._redis.pipeline() as pipe:
            pipe.watch(record, meta, keys.current)
            where, copy = base, 1
            while pipe.exists(where + ":reason"):
                copy += 1
                where = f"{base}.{copy}"
            has_record, has_meta = pipe.exists(record), pipe.exists(meta)
            is_current = pipe.get(keys.current) == game_id
            pipe.multi()
            if has_record:
                pipe.rename(record, where + ":record")
            if has_meta:
                pipe.rename(meta, where + ":meta")
            pipe.set(where + ":reason", json.dumps(
                {"game_id": game_id, "reason": reason, "date": format_date(self._clock())}))
            pipe.zrem(keys.history, game_id)
            if is_current:
                pipe.delete(keys.current)
            pipe.execute()
        self._warn(f"game {game_id} set aside as {where}: {reason}")
        return where
