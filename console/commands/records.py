"""The commands that read game records: `replay` (a record file) and `history`, `export` (the store)."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from console.commands.common import read_text
from console.config.files import input_name
from console.game.record import MAX_RECORD_BYTES, replay_record, state_json, state_summary
from console.store.format import StoreError, history_line
from console.store.games import GameStore


def replay_main(path: str, as_json: bool) -> int:
    """`hues-console replay FILE [--json]`: where the record ends, as a summary or the replay JSON."""
    state = replay_record(read_text(path, MAX_RECORD_BYTES), source=input_name(path))
    print(json.dumps(state_json(state)) if as_json else state_summary(state))
    return 0


def history_main(store: GameStore, out: TextIO, limit: int = 100) -> int:
    """`hues-console history`: one line per finished (or abandoned) game, newest first."""
    entries = store.history(limit)
    if not store.online:
        print(f"hues-console history: the game store {store.url} cannot be reached", file=sys.stderr)
        return 1
    for entry in entries:
        print(history_line(entry), file=out)
    if not entries:
        print("no games stored yet", file=out)
    return 0


def export_main(store: GameStore, game_id: str | None, out: TextIO) -> int:
    """`hues-console export [GAME]`: the game's record as JSON lines, the format `replay` reads."""
    try:
        actions = store.export(game_id)
    except StoreError as error:
        print(f"hues-console export: {error}", file=sys.stderr)
        return 1
    for action in actions:
        print(json.dumps(action, ensure_ascii=False), file=out)
    return 0
