"""The games as Redis keeps them: each read and write of the key schema (see `games.py`), with no
outage logic. Every write is idempotent, so the store can repeat any of them after a lost reply,
a crash or a replayed journal and Redis ends up the same.

Why a repeated record write cannot duplicate: it brings Redis's list up to the console's copy. It
WATCHes the list, reads LLEN n, checks that element n-1 is the console's element n-1, and RPUSHes
only elements n.. in MULTI/EXEC. If the reply of a write was lost, the retry finds LLEN already
there and pushes nothing; if Redis lost lines (a restart without its AOF), the missing ones are
pushed again. (WATCH/MULTI, not a Lua script: fakeredis runs Lua only with lupa installed.)
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from typing import Callable

import redis

from console.store.format import (
    ABANDONED, CHAIN_DIGITS, FINISHED, LATEST_TIME, PLAYING, RECORD_VERSION, CorruptRecordError, DecodedRecord, GameNotFoundError, Keys,
    chain_of, chained_line, decode_record, format_date, history_entry,
)

log = logging.getLogger("console.store.games")

DIFFERS = "it differs from the console's copy of the game"
MAX_ORDER = 2 ** 53
"""The order counter stays below this: a sorted set's score (a double) holds whole numbers
exactly only up to here, and INCR stops at int64's end. A counter past it is damage."""


@dataclass(eq=False)
class Game:
    """The console's own copy of a game: the truth that Redis is brought up to."""

    id: str
    lines: list[str]  # the stored elements (version 2: `<chain> <JSON>`)
    started: float
    version: str = str(RECORD_VERSION)

    def next_line(self, text: str) -> str:
        """The record element that the action JSON `text` becomes after the last one."""
        if self.version == "1":
            return text  # a game begun before the chain existed goes on without one
        return chained_line(chain_of(self.lines[-1]) if self.lines else self.id, text)

    def texts(self) -> list[str]:
        return self.lines if self.version == "1" else [line[CHAIN_DIGITS + 1:] for line in self.lines]


@dataclass(frozen=True)
class Restored:
    """What a restore did and found: whether it wrote, the record lines Redis holds past the
    console's copy, and Redis's close of a game the console has no close for."""

    written: bool
    ahead: list[str]
    closed: dict | None = None


def closed_in(meta: dict[str, str]) -> dict | None:
    """A closed game's meta as a close entry's fields (ended, status, fields); None if unreadable."""
    try:
        ended = float(meta["ended"])
    except (KeyError, ValueError):
        return None
    if meta.get("status") not in (FINISHED, ABANDONED) or not 0 <= ended < LATEST_TIME:
        return None
    return {"ended": ended, "status": meta["status"], "fields": {
        name: value for name, value in meta.items() if name not in ("version", "started", "status", "ended")}}


def is_wrong_type(error: Exception) -> bool:
    return isinstance(error, redis.ResponseError) and str(error).startswith("WRONGTYPE")


class RedisGames:
    """Reads and writes of the key schema on one client. `owner` is this console's lease token."""

    def __init__(self, client: redis.Redis, keys: Keys, owner: str, clock: Callable[[], float],
                 keep_games: int):
        self.redis = client
        self.keys = keys
        self.owner = owner
        self.clock = clock
        self.keep_games = keep_games

    # -- writes ------------------------------------------------------------------------------------

    def write_record(self, game: Game) -> None:
        if not self._push_missing_lines(game):
            self.set_aside(game.id, DIFFERS)
            self._push_missing_lines(game)

    def _push_missing_lines(self, game: Game) -> bool:
        """Bring Redis's record up to `game.lines`; False if Redis holds a different record."""
        keys, record = self.keys, self.keys.record(game.id)
        lines = list(game.lines)
        with self.redis.pipeline() as pipe:
            pipe.watch(record, keys.meta(game.id))
            stored = pipe.llen(record)
            if stored > len(lines):
                return pipe.lindex(record, len(lines) - 1) == lines[-1]  # Redis is ahead: a newer copy
            if stored and pipe.lindex(record, stored - 1) != lines[stored - 1]:
                return False
            if stored == len(lines):
                return True
            order = self.next_order() if stored == 0 else 0
            pipe.multi()
            if stored == 0:  # a new game, or one whose record Redis lost: (re)write its meta
                pipe.hset(keys.meta(game.id), mapping={
                    "version": game.version, "started": game.started, "status": PLAYING})
                pipe.zadd(keys.playing, {game.id: order}, nx=True)
                pipe.set(keys.lease(game.id), self.owner)
            pipe.rpush(record, *lines[stored:])
            pipe.execute()
        return True

    def close_game(self, game_id: str, ended: float, status: str, fields: dict[str, str]) -> bool:
        """Close a game into the history; False, and nothing written, when Redis has it so
        already (a restore asks this of every game kept; each write costs an fsync on the card)."""
        keys = self.keys
        with self.redis.pipeline() as pipe:
            pipe.watch(keys.current, keys.meta(game_id), keys.history, keys.playing)
            legacy_current = pipe.get(keys.current) == game_id
            meta = pipe.hgetall(keys.meta(game_id))
            in_history = pipe.zscore(keys.history, game_id) is not None
            if (in_history and not legacy_current and meta.get("status") == status
                    and all(meta.get(name) == value for name, value in fields.items())
                    and pipe.zscore(keys.playing, game_id) is None and not pipe.exists(keys.lease(game_id))):
                return False
            order = 0 if in_history else self.next_order()
            pipe.multi()
            pipe.hset(keys.meta(game_id), mapping={"status": status, "ended": ended, **fields})
            if not in_history:
                pipe.zadd(keys.history, {game_id: order})
            pipe.zrem(keys.playing, game_id)
            pipe.delete(keys.lease(game_id))
            if legacy_current:
                pipe.delete(keys.current)
            pipe.execute()
        self._trim_history()
        return True

    def restore(self, game: Game, close: dict | None) -> Restored:
        """Bring Redis up to a game the console keeps (its record, meta, index and lease, or its
        close), and say what Redis holds beyond it: the moves, or the close, that Redis took
        while the console's disk could not (NotDurableError's other side)."""
        keys, lines = self.keys, game.lines
        stored = self.redis.lrange(keys.record(game.id), 0, -1)  # whole: damage may have changed any line
        written = stored[:len(lines)] != lines
        if written:
            if stored and stored != lines[:len(stored)]:
                self.set_aside(game.id, DIFFERS)
            self.write_record(game)
        ahead = [] if written else stored[len(lines):]
        if close is not None:
            return Restored(self.close_game(game.id, close["ended"], close["status"], close["fields"]) or written, ahead)
        meta = self.redis.hgetall(keys.meta(game.id))
        if meta.get("status", PLAYING) != PLAYING:  # closed in Redis alone: the close the journal could not take
            return Restored(written, ahead, closed_in(meta))
        if not meta.get("version") or self.redis.zscore(keys.playing, game.id) is None:
            order = self.next_order()
            with self.redis.pipeline() as pipe:
                pipe.hset(keys.meta(game.id), mapping={
                    "version": game.version, "started": game.started, "status": PLAYING})
                pipe.zadd(keys.playing, {game.id: order}, nx=True)
                pipe.set(keys.lease(game.id), self.owner, nx=True)
                pipe.execute()
            written = True
        return Restored(written, ahead)

    def _trim_history(self) -> None:
        """Keep the newest `keep_games` closed games; older ones (record and meta) are deleted."""
        keys = self.keys
        surplus = self.redis.zcard(keys.history) - self.keep_games
        if surplus <= 0:
            return
        old = self.redis.zrange(keys.history, 0, surplus - 1)
        with self.redis.pipeline() as pipe:
            for game_id in old:
                pipe.delete(keys.record(game_id), keys.meta(game_id))
                pipe.zrem(keys.history, game_id)
            pipe.execute()

    def next_order(self) -> int:
        """A number larger than any the store gave before: the order of games, never the clock.
        A counter that is missing (the first game, or lost), not a whole number below MAX_ORDER
        (damage: text, bytes that are not UTF-8, int64's end) is rebuilt above the scores of the
        history and the playing set; a bad value is set aside first, never a reason to stop."""
        keys = self.keys
        value = self.redis.get(keys.order)  # a key of the wrong type: the caller sets it aside
        if not (value is not None and value.isascii() and value.isdigit() and int(value) < MAX_ORDER - 1):
            self._rebuild_order(value)
        return self.redis.incr(keys.order)

    def _rebuild_order(self, bad: str | None) -> None:
        keys, top, damaged = self.keys, 0, []
        for index in (keys.history, keys.playing):
            for game_id, score in self.redis.zrange(index, 0, -1, withscores=True):
                if math.isfinite(score) and 0 <= score < MAX_ORDER - 1_000_000:
                    top = max(top, int(score))
                else:  # +-inf, 1e300...: damage; renumbered as the newest, in their order
                    damaged.append((index, game_id))
        for index, game_id in damaged:
            top += 1
            self.redis.zadd(index, {game_id: top})
        if bad is not None:
            where = self._quarantine_name("order")
            with self.redis.pipeline() as pipe:
                pipe.set(where + ":value", bad)
                pipe.set(where + ":reason", self._reason(keys.order, "the order counter is not a whole number"))
                pipe.execute()
            log.warning("the order counter %s was %r, not a whole number; set aside as %s:value and "
                        "rebuilt at %d", keys.order, bad[:40], where, top)
        elif damaged:
            log.warning("%d games had an order that is no number (%s); renumbered", len(damaged), damaged[0][1][:40])
        self.redis.set(keys.order, top)

    def write_setting(self, name: str, text: str) -> None:
        self.redis.hset(self.keys.settings, name, text)

    def read_setting(self, name: str) -> str | None:
        return self.redis.hget(self.keys.settings, name)

    def set_aside_setting(self, name: str, text: str, reason: str) -> str:
        where = self._quarantine_name(f"settings.{name}")
        with self.redis.pipeline() as pipe:
            pipe.set(where + ":value", text)
            pipe.set(where + ":reason", self._reason(f"setting {name}", reason))
            pipe.hdel(self.keys.settings, name)
            pipe.execute()
        return where

    # -- leases ------------------------------------------------------------------------------------

    def lease_holder(self, game_id: str) -> str | None:
        try:
            return self.redis.get(self.keys.lease(game_id))
        except redis.ResponseError as error:
            if not is_wrong_type(error):
                raise
            self.repair_types((game_id,))
            return None

    def take_lease(self, game_id: str) -> bool:
        """Claim `game_id` for this console (or renew the claim); False if another console holds it.
        A claim does not run out: the console holding a game may hold moves of it that Redis has
        not taken yet (its journal), so only closing the game lets it go."""
        lease = self.keys.lease(game_id)
        if self.redis.set(lease, self.owner, nx=True):
            return True
        if self.redis.get(lease) == self.owner:
            self.redis.set(lease, self.owner, xx=True)  # without an expiry: a claim from before claims lasted
            return True
        return False

    # -- reads -------------------------------------------------------------------------------------

    def playing_ids(self) -> list[str]:
        """Unfinished games, newest first (and a `current` key from before the playing set existed)."""
        ids = self.redis.zrevrange(self.keys.playing, 0, 49)
        legacy = self.redis.get(self.keys.current)
        return ids + [legacy] if legacy is not None and legacy not in ids else ids

    def read_game(self, game_id: str) -> tuple[dict[str, str], DecodedRecord]:
        keys = self.keys
        pipe = self.redis.pipeline()
        pipe.hgetall(keys.meta(game_id))
        pipe.lrange(keys.record(game_id), 0, -1)
        meta, lines = pipe.execute(raise_on_error=False)
        if isinstance(meta, redis.ResponseError) or isinstance(lines, redis.ResponseError):
            raise CorruptRecordError("its meta is not a hash or its record is not a list")
        if not meta and not lines:
            raise GameNotFoundError(f"no game {game_id[:80]!r} is stored")
        return meta, decode_record(game_id, meta, lines)

    def history(self, limit: int, warn: Callable[[str, str], None]) -> list[dict]:
        keys = self.keys
        ids = self.redis.zrevrange(keys.history, 0, limit - 1)
        pipe = self.redis.pipeline(transaction=False)
        for game_id in ids:
            pipe.hgetall(keys.meta(game_id))
            pipe.llen(keys.record(game_id))
        replies = pipe.execute(raise_on_error=False)
        entries = []
        for game_id, meta, length in zip(ids, replies[::2], replies[1::2]):
            try:
                if isinstance(meta, redis.ResponseError) or isinstance(length, redis.ResponseError):
                    raise CorruptRecordError("its keys are not a hash and a list")
                entries.append(history_entry(game_id, meta, length))
            except CorruptRecordError as problem:
                warn(game_id, str(problem))
        return entries

    def latest_game_id(self) -> str:
        for key in (self.keys.playing, self.keys.history):
            newest = self.redis.zrevrange(key, 0, 0)
            if newest:
                return newest[0]
        legacy = self.redis.get(self.keys.current)
        if legacy is None:
            raise GameNotFoundError("no game is stored yet")
        return legacy

    def persistence_problems(self) -> list[str]:
        """What keeps this Redis from keeping an acknowledged write through a power cut."""
        try:
            config = self.redis.config_get("append*")
        except redis.ResponseError as error:
            return [f"cannot check that Redis persists its data ({error})"]
        problems = []
        if config.get("appendonly") != "yes":
            problems.append("Redis keeps no append-only file (appendonly is not yes): "
                            "a power cut loses the games since its last snapshot")
        if config.get("appendfsync") != "always":
            problems.append(f"Redis fsyncs its append-only file {config.get('appendfsync', '?')!r}, not "
                            "'always': a power cut can lose the last second of moves")
        return problems

    # -- setting aside -----------------------------------------------------------------------------

    def wrong_types(self, game_ids: tuple[str, ...] = ()) -> list[tuple[str, str, str]]:
        """(key, its type, the schema's type) of each shared key, or key of `game_ids`, whose Redis
        type is not the one the schema gives it."""
        expected = dict(self.keys.fixed())
        for game_id in game_ids:
            expected.update({self.keys.record(game_id): "list", self.keys.meta(game_id): "hash",
                             self.keys.lease(game_id): "string"})
        pipe = self.redis.pipeline(transaction=False)
        for key in expected:
            pipe.type(key)
        return [(key, found, kind) for (key, kind), found in zip(expected.items(), pipe.execute())
                if found not in ("none", kind)]

    def repair_types(self, game_ids: tuple[str, ...] = ()) -> list[str]:
        """Set aside every key of the wrong type (see `wrong_types`), one log line each; returns
        what was set aside. Nothing is deleted."""
        moved = []
        for key, found, kind in self.wrong_types(game_ids):
            where = self._quarantine_name(key.removeprefix(self.keys.prefix))
            reason = f"the key {key} was a {found}, not a {kind}"
            with self.redis.pipeline() as move:
                move.rename(key, where + ":key")
                move.set(where + ":reason", self._reason(key, reason))
                move.execute()
            moved.append(f"{reason}; set aside as {where}:key")
            log.warning("%s; set aside as %s:key", reason, where)
        return moved

    def cut_record(self, game_id: str, keep: int, reason: str) -> str:
        """Keep the first `keep` elements of a record; the rest go under quarantine. Returns where."""
        record = self.keys.record(game_id)
        where = self._quarantine_name(f"{game_id}-tail")
        with self.redis.pipeline() as pipe:
            pipe.watch(record)
            rest = pipe.lrange(record, keep, -1)
            pipe.multi()
            if rest:
                pipe.rpush(where + ":record", *rest)
            pipe.ltrim(record, 0, keep - 1)
            pipe.set(where + ":reason", self._reason(game_id, reason))
            pipe.execute()
        return where

    def set_aside(self, game_id: str, reason: str) -> str:
        """Rename a game's keys under quarantine: for inspection, never deleted; returns the new name."""
        keys = self.keys
        record, meta = keys.record(game_id), keys.meta(game_id)
        where = self._quarantine_name(game_id)
        with self.redis.pipeline() as pipe:
            pipe.watch(record, meta, keys.current)
            has_record, has_meta = pipe.exists(record), pipe.exists(meta)
            is_current = pipe.get(keys.current) == game_id
            pipe.multi()
            if has_record:
                pipe.rename(record, where + ":record")
            if has_meta:
                pipe.rename(meta, where + ":meta")
            pipe.set(where + ":reason", self._reason(game_id, reason))
            pipe.zrem(keys.history, game_id)
            pipe.zrem(keys.playing, game_id)
            pipe.delete(keys.lease(game_id))
            if is_current:
                pipe.delete(keys.current)
            pipe.execute()
        log.warning("game %s set aside as %s: %s", game_id, where, reason)
        return where

    def _quarantine_name(self, name: str) -> str:
        base = self.keys.quarantine(f"{name}@{int(self.clock())}")
        where, copy = base, 1
        while self.redis.exists(where + ":reason"):
            copy += 1
            where = f"{base}.{copy}"
        return where

    def _reason(self, what: str, reason: str) -> str:
        return json.dumps({"game_id": what, "reason": reason, "date": format_date(self.clock())})
