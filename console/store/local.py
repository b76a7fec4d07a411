"""What the console keeps on its own disk beside Redis, and how it gives Redis back what Redis lost.

Two copies: the journal (`journal.py`: every write, fsynced before the panel shows it) and the
kept games (`kept.py`: the newest finished games, one file each). A game stays in the journal
while it is unfinished, and once closed until Redis has its close and its file is in `kept/`;
the journal is rewritten down to those games (and the settings) at each new game. So whatever
happens to Redis's files, the unfinished games and the last KEEP_FINISHED finished ones are on
the console's disk, and each new connection to Redis (a restart after a repair, a Redis that came
back) checks them all and writes back only what is missing (`_restore`).
"""

from __future__ import annotations

import logging
from pathlib import Path

import redis

from console.store import journal as journaling
from console.store.format import (
    ABANDONED, FINISHED, LATEST_TIME, CorruptRecordError, DecodedRecord, JournalError, decode_record,
    load_setting, next_line_problem,
)
from console.store.kept import KEEP_FINISHED, KeptGames
from console.store.redis_games import Game, Restored

log = logging.getLogger("console.store.games")

MAX_GAME_LINES = 10_000
"""The longest game a journal is taken over with: a 10-player game with many tie-breaks has some
300 actions (record.MAX_RECORD_BYTES). Lines beyond are no game anyone played: the journal is
kept aside with them, and the start stays bounded in time and memory."""


def decoded(game: Game, lines: list[str]) -> DecodedRecord:
    """`lines` as the record of `game` (CorruptRecordError when not even its first line is good)."""
    return decode_record(game.id, {"version": game.version, "started": str(game.started)}, lines)


class LocalCopies:
    """The journal, the kept games and the games in memory: the base of `JournalledWriter`, which
    sets up what this uses (`_lock`, `_io`, `_backlog`, `_queue`...)."""

    def _snapshot_entry(self, game: Game) -> dict:
        return journaling.entry("game", id=game.id, started=game.started, version=game.version,
                                lines=list(game.lines))

    def _snapshot(self) -> list[dict]:
        """What the journal must hold: each game not yet safe elsewhere, whole (the unfinished
        ones; the closed ones Redis or `kept/` does not have yet, with their close), then the
        latest value of each setting."""
        entries = []
        for game in self._games.values():
            entries.append(self._snapshot_entry(game))
            if game.id in self._closes:
                entries.append(self._closes[game.id])
        entries.extend(close for game_id, close in self._closes.items()  # its game let go by an older version
                       if game_id not in self._games)
        entries.extend(self._setting_items.values())
        return entries

    def _compact(self) -> None:
        """The journal is rewritten down to what it must hold (a new game begins)."""
        try:
            self._journal.rewrite(self._snapshot())
            self._journal_stale = False
        except JournalError as error:
            self._set_journal_ok(False, str(error))

    def _note(self, item: dict) -> None:
        """What the journal keeps of a write besides the game itself (under `_lock`)."""
        if item["op"] == "close":
            self._closes[item["id"]] = item
            if self._game is not None and self._game.id == item["id"]:
                self._game = None
        elif item["op"] == "setting":
            self._setting_items[item["name"]] = item

    # -- at start: the journals consoles left --------------------------------------------------------

    def _open_local(self, directory: Path) -> None:
        try:
            leftovers = journaling.take_leftovers(directory)
            self._journal = journaling.Journal(directory)
        except JournalError as error:
            self._no_journal = error  # every move then waits for Redis to take it
            self._set_journal_ok(False, str(error))
            return
        self._kept = KeptGames(directory, min(KEEP_FINISHED, self._io.keep_games))
        for leftover in leftovers:
            taken = skipped = 0
            for item in leftover.entries():
                problem = self._take_over(item)
                taken, skipped = taken + (problem is None), skipped + (problem is not None)
                if problem is not None:
                    leftover.skipped(f"an entry cannot be read ({problem}): a newer version's journal?")
            try:
                self._journal.rewrite(self._snapshot())
            except JournalError as error:
                self._set_journal_ok(False, str(error))
                break  # keep the leftover: it is the only copy on disk
            log.warning("taking over %d writes of a console that stopped early (%s)%s", taken, leftover.path,
                        f"; {skipped} could not be read" if skipped else "")
            leftover.release()
        for item in self._snapshot():  # each game whole and each setting once, however often written
            self._queue(item)

    def _take_over(self, item: dict) -> str | None:
        """Replay one entry of a leftover journal into memory (the backlog gets what it adds up
        to once all are read); why it cannot be, or None."""
        try:
            problem = journaling.entry_problem(item)
            if problem:
                raise CorruptRecordError(problem)
            op, game_id = item["op"], item.get("id")
            if op == "game":
                game = Game(game_id, list(item["lines"]), item["started"], item["version"])
                record = decoded(game, game.lines[:MAX_GAME_LINES])
                too_long = len(game.lines) > MAX_GAME_LINES
                if record.problem or too_long:  # kept up to there, as a record read from Redis is
                    log.warning("game %s in a journal: %s; kept up to there", game_id,
                                record.problem or f"it is longer than {MAX_GAME_LINES} actions")
                    game.lines = record.lines
                self._games[game_id], self._game = game, game
                self._closes.pop(game_id, None)
                if too_long:
                    return f"game {game_id} is longer than {MAX_GAME_LINES} actions"
            elif op == "line":
                game = self._games[game_id]
                if len(game.lines) >= MAX_GAME_LINES:
                    raise CorruptRecordError(f"game {game_id} is longer than {MAX_GAME_LINES} actions")
                problem = next_line_problem(game.id, game.version, game.lines, item["line"])
                if problem:
                    raise CorruptRecordError(f"a line of game {game_id} {problem}")
                game.lines.append(item["line"])
            elif op == "close":
                if item["status"] not in (FINISHED, ABANDONED) or not 0 <= item["ended"] < LATEST_TIME:
                    raise CorruptRecordError(f"it closes game {game_id} as {item['status'][:20]!r} at {item['ended']}")
            elif op == "setting":
                self._settings[item["name"]] = load_setting(item["text"])
        except KeyError as missing:
            return f"no {str(missing)[:40]}"
        except CorruptRecordError as problem:
            return str(problem)
        self._note(item)
        return None

    # -- once Redis has a game's close: keep it -----------------------------------------------------

    def _keep_closed(self, game_id: str) -> None:
        """Redis holds this closed game now: write its file in `kept/` and let the journal drop it
        (at its next rewrite). A disk that cannot take the file leaves it in the journal."""
        with self._lock:
            game, close = self._games.get(game_id), self._closes.get(game_id)
            if game is None:
                self._closes.pop(game_id, None)
                return
            if close is None or self._kept is None or any(
                    pending.get("id") == game_id for _, pending in self._backlog):
                return
        try:
            self._kept.add(self._snapshot_entry(game), close)
        except OSError as error:
            log.warning("game %s cannot be kept in %s (%s): the journal keeps it", game_id,
                        self._kept.directory, error.strerror)
            return
        with self._lock:
            self._games.pop(game_id, None)
            self._closes.pop(game_id, None)

    # -- on each new connection: give Redis back what it lost ---------------------------------------

    def _take_from_redis(self, game: Game, known: int, restored: Restored) -> None:
        """Redis holds more of a game than the journal: the moves (or the close) it took while the
        journal's disk was full, acknowledged because Redis had them on disk. The console's copy
        takes them (each line checked against the one before), and the journal gets them."""
        with self._lock:
            if self._games.get(game.id) is not game or len(game.lines) != known:
                return  # played on meanwhile: its own lines go first (Redis's then differ, set aside)
            taken = 0
            for line in restored.ahead[:max(0, MAX_GAME_LINES - known)]:
                if next_line_problem(game.id, game.version, game.lines, line):
                    break
                game.lines.append(line)
                taken += 1
            closed = restored.closed is not None and taken == len(restored.ahead)
            if closed:  # the writer then keeps it as it keeps any game Redis has closed
                close = journaling.entry("close", id=game.id, **restored.closed)
                self._note(close)
                self._queue(close)
            if self._journal is not None and (taken or closed):
                self._compact()
        log.warning("game %s: %d moves%s only Redis had (the journal's disk was full) are kept here again",
                    game.id, taken, " and its close" if closed else "")

    def _restore(self) -> None:
        """Check every game kept here against Redis and write back what Redis lost (a damaged
        append-only file cut back by the repair, a lost file...); only what is missing is
        written. A game Redis refuses is logged and left: never a reason to stop writing."""
        with self._lock:
            journal = [(game, self._closes.get(game.id)) for game in self._games.values()]
            settings = list(self._setting_items.values())
        kept = [] if self._kept is None else [
            (Game(entry["id"], list(entry["lines"]), entry["started"], entry["version"]), close)
            for entry, close in self._kept.games()]
        written = 0
        for game, close in kept + journal:
            known = len(game.lines)
            try:
                restored = self._with_repair(lambda: self._io.restore(game, close), game.id)
            except redis.ResponseError as error:
                log.warning("game %s cannot be written back to %s (%s)", game.id, self.url, error)
                continue
            written += restored.written
            if (restored.ahead or restored.closed) and close is None:
                self._take_from_redis(game, known, restored)
        for item in settings:
            if self._io.read_setting(item["name"]) is None:
                self._io.write_setting(item["name"], item["text"])
        if written:
            log.warning("game store %s had lost %d of the games this console keeps; written back", self.url, written)
