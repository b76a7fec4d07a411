"""The last finished games, kept on the console's own disk as well as in Redis.

Redis's append-only files can come back damaged from the SD card (a zeroed page, a flipped byte,
a lost file); `scripts/redis-repair-aof` then starts Redis with what can still be read, and the
games after the damage are gone from it. The journal alone could not bring them back: it lets a
game go once Redis has it. So each closed game, once Redis holds it, is written here, one file a
game (`kept/<number>-<id>.jsonl`: its `game` and `close` journal entries, checksummed like the
journal), and the newest KEEP_FINISHED stay. On every new connection the writer checks them
against Redis and writes back whatever Redis lost (`JournalledWriter._restore`).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path

from console.store.journal import decode_line, encode_entry, entry_problem, fsync_directory

log = logging.getLogger("console.store.games")

KEEP_FINISHED = 100
"""How many finished (or abandoned) games the console keeps beside Redis: a few parties' worth."""
MAX_KEPT_BYTES = 4 * 1024 * 1024  # one game's file at most (a game is about 20 KB)
GAME_ID = re.compile(r"[0-9A-Za-z_-][0-9A-Za-z_.-]{0,99}")  # a file name's part: no "/", no ".."
NAME = re.compile(rf"(\d{{1,12}})-({GAME_ID.pattern})\.jsonl")


class KeptGames:
    """`state_dir/kept`: the newest `keep` closed games, each in a file of its own."""

    def __init__(self, state_dir: Path, keep: int = KEEP_FINISHED):
        self.directory = Path(state_dir) / "kept"
        self.keep = keep

    def _files(self) -> list[tuple[int, str, Path]]:
        """(number, game id, path) of each kept game, oldest first."""
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        found = []
        for name in names:
            match = NAME.fullmatch(name)
            if match:
                found.append((int(match[1]), match[2], self.directory / name))
        return sorted(found)

    def add(self, game_entry: dict, close_entry: dict) -> None:
        """Keep a closed game (OSError when the disk cannot take it: it stays in the journal);
        the oldest beyond `keep` go."""
        if not GAME_ID.fullmatch(game_entry["id"]):
            return  # an id no file may be named after (a newer version's?): Redis alone keeps it
        files = self._files()
        number = files[-1][0] + 1 if files else 1
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self.directory / f"{number}-{game_entry['id']}.jsonl"
        temporary = path.with_suffix(".new")
        try:
            with open(temporary, "wb") as out:
                out.write(encode_entry(game_entry) + encode_entry(close_entry))
                out.flush()
                os.fsync(out.fileno())
            os.rename(temporary, path)
            fsync_directory(self.directory)
        except OSError:
            temporary.unlink(missing_ok=True)
            raise
        for _, _, old in [*files, (number, game_entry["id"], path)][:-self.keep or None]:
            old.unlink(missing_ok=True)

    def games(self) -> Iterator[tuple[dict, dict]]:
        """Each kept game's (game entry, close entry), oldest first; a file that cannot be read
        (damaged on the card) is left out with a log line and renamed `.damaged`."""
        for _, game_id, path in self._files():
            entries = self._read(path)
            if entries is None:
                try:
                    os.rename(path, path.with_suffix(".damaged"))
                except OSError:
                    pass
                log.warning("the kept copy %s of game %s cannot be read; set aside", path, game_id[:40])
                continue
            yield entries

    @staticmethod
    def _read(path: Path) -> tuple[dict, dict] | None:
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_KEPT_BYTES + 1)
        except OSError:
            return None
        lines = data.splitlines(keepends=True)
        if len(data) > MAX_KEPT_BYTES or len(lines) != 2:
            return None
        game, close = (decode_line(line) for line in lines)
        if (game is None or close is None or game.get("op") != "game" or close.get("op") != "close"
                or entry_problem(game) or entry_problem(close) or game["id"] != close["id"]):
            return None
        return game, close
