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
    P game:<id>:lease         string  the console playing it (until it closes the game)
    P history                 zset    ids of finished and abandoned games, scored by P order
    P order                   string  a counter: the order of games, never the (settable) clock;
                                      damaged, it is set aside and rebuilt above the scores
    P settings                hash    setting name -> JSON value (brightness...)
    P quarantine:<what>@<time>:...    whatever was set aside (RENAMEd, never deleted) and :reason
    P current                 string  (read only) the unfinished game of a store from before `playing`

Decisions:
- Game ids are 128 random bits: made without Redis and without the clock, so they never collide.
- A stored unfinished game is only closed by the host's choice (`abandon` after the resume offer,
  or finishing it). A new game started while Redis was down leaves the stored one unfinished; it
  is offered again when no game is under way.
- A console owns the game it plays with a lease that does not run out: the console may hold moves
  of it that Redis has not taken yet (its journal, while Redis was away), and another console
  resuming from Redis would play on without them. Closing the game (finished or abandoned) lets it
  go. `unfinished` leaves a game leased by another console alone (and says so). The lease token is
  kept in the state directory, so the same console after a crash or power cut takes its own game
  straight back; a second console on the same state directory refuses to start.
- What the console keeps beside Redis (its journal, the last finished games in `kept/`) is
  checked against Redis on each new connection and what Redis lost is written back (`local.py`);
  what Redis alone holds of them (moves or a close it took while the journal's disk was full) is
  taken into the console's copy.
- What cannot be read back (bad JSON, a broken checksum chain, an unknown version, a bad summary,
  a setting nested too deep, a key of the wrong Redis type) is set aside under `quarantine:` with
  one log line. A record damaged part-way is cut back to its longest valid prefix; only the tail
  goes to quarantine. Read-only stores (the `history` and `export` commands) set nothing aside.
- A write Redis refuses (disk full: MISCONF, out of memory) is treated like an outage; the journal
  keeps it. If the journal cannot be written either, `append` raises NotDurableError and the app
  does not show the move (`journal_ok` is False so the panel can say so).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import redis

from console.store import journal as journaling
from console.store.format import (  # the errors are part of this module's API
    ABANDONED, FINISHED, PLAYING, CorruptRecordError, GameNotFoundError, NoCurrentGameError,
    NotDurableError, NotStorableError, StoreError, StoreOfflineError, StoreUrlError, encode_action,
    encode_value, format_date, history_line, load_setting, new_game_id, stored_time,
)
from console.store.redis_games import Game
from console.store.writer import LEASE_RENEW_S, JournalledWriter

log = logging.getLogger(__name__)


class GameStore(JournalledWriter):
    """The game record store; see the module docstring for the key schema and the rules, and
    `JournalledWriter` for the parameters."""

    _look_after = 0.0  # on the monotonic clock: when `unfinished` may ask Redis again
    _ask_again = False  # the last look left a game for later (another console holds it, or a game began)

    def __init__(self, *args: Any, **options: Any):
        super().__init__(*args, **options)
        self._told_leased: set[str] = set()  # games whose lease by another console was logged

    def start_game(self, new_game: dict) -> str:
        """Start recording a game from its new_game action; returns the game id."""
        line = encode_action(new_game)
        if new_game["action"] != "new_game":
            raise NotStorableError(f"a game starts with a new_game action, not {new_game['action']!r}")
        game = Game(new_game_id(), [], self._clock())
        game.lines.append(game.next_line(line))
        with self._lock:
            if not self._backlog and self._journal is not None:
                self._compact()
        self._record(self._snapshot_entry(game), game)
        with self._lock:
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
        While Redis cannot be reached, or another console holds an unfinished game, it is None
        and `resume_checked` stays False: ask again (Redis is asked again at most every few
        seconds). It may wait on Redis: the app asks it through `later`, never on its own thread."""
        if self._game is not None:
            self.resume_checked = True
            return self._game.id, self._actions(self._game)
        if not self._online or self._monotonic() < self._look_after:
            return None
        self._ask_again = False
        found = self._reading(self._find_unfinished, None)
        if self._online:
            self.resume_checked = found is not None or not self._ask_again
        self._look_after = self._monotonic() + LEASE_RENEW_S if self._ask_again else 0.0
        return found

    def _find_unfinished(self) -> tuple[str, list[dict]] | None:
        for game_id in self._io.playing_ids():
            holder = self._io.lease_holder(game_id)
            if holder not in (None, self._io.owner):
                self._ask_again = True
                if game_id not in self._told_leased:
                    self._told_leased.add(game_id)
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
            if self.read_only or self._game is not None or not self._io.take_lease(game_id):
                self._ask_again = self._ask_again or self._game is not None
                continue
            game = Game(game_id, list(decoded.lines), stored_time(meta, "started"), meta["version"])
            with self._lock:
                if self._game is not None:  # a game began while this one was looked for: the next look offers it
                    self._ask_again = True
                    return None
                self._game = game
            try:
                self._record(self._snapshot_entry(game), game)
            except NotDurableError as error:
                log.warning("game %s: %s", game_id, error)  # it is in Redis already
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
        self.later(lambda store: store._reading(lambda: log.warning(
            "game %s cut back to its first %d actions: %s; the rest is kept as %s",
            game.id, keep, reason, store._io.cut_record(game.id, keep, reason)), None))

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
            reason = str(problem)
            where = "" if self.read_only else "; set aside as " + self._reading(
                lambda: self._io.set_aside_setting(name, text, reason), "?")
            log.warning("setting %r in %s: %s; using %r%s", name, self._keys.settings, reason, default, where)
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
        self.later(lambda store: store._reading(lambda: store._quarantine(game_id, reason), None))

    # -- internals -----------------------------------------------------------------------------------

    def _current_game(self) -> Game:
        if self._game is None:
            raise NoCurrentGameError("no game is being recorded: call start_game() or unfinished() first")
        return self._game

    @staticmethod
    def _actions(game: Game) -> list[dict]:
        return [json.loads(text) for text in game.texts()]

    def _quarantine(self, game_id: str, reason: str) -> None:
        if self.read_only:
            log.warning("game %s cannot be read: %s", game_id, reason)
            return
        self._io.set_aside(game_id, reason)


__all__ = [
    "GameStore", "StoreError", "CorruptRecordError", "GameNotFoundError", "NoCurrentGameError",
    "NotDurableError", "NotStorableError", "StoreOfflineError", "StoreUrlError", "history_line",
]
