"""The commands that read game records: `replay` (a record file) and `history`, `export` (the store)."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from console.commands.common import UsageError, read_text
from console.config.files import input_name
from console.config.loader import one_line
from console.game.record import MAX_RECORD_BYTES, replay_record, state_json, state_summary
from console.store.format import StoreError, StoreOfflineError, history_line
from console.store.games import GameStore


def replay_main(path: str, as_json: bool) -> int:
    """`hues-console replay FILE [--json]`: where the record ends, as a summary or the replay JSON."""
    state = replay_record(read_text(path, MAX_RECORD_BYTES), source=input_name(path))
    print(json.dumps(state_json(state)) if as_json else state_summary(state))
    return 0


def history_main(store: GameStore, out: TextIO, limit: int = 100) -> int:
    """`hues-console history`: one line per finished (or abandoned) game, newest first; what the
    store holds is shown escaped, so a stored escape sequence cannot drive the terminal."""
    entries = store.history(limit)
    if not store.online:
        print(f"hues-console history: the game store {store.url} cannot be reached", file=sys.stderr)
        return 1
    for entry in entries:
        print(one_line(history_line(entry)), file=out)
    if not entries:
        print("no games stored yet", file=out)
    return 0


def export_main(store: GameStore, game_id: str | None, out: TextIO) -> int:
    """`hues-console export [GAME]`: the game's record as JSON lines, the format `replay` reads.
    A game that cannot be exported is one line and exit status 2 (1 while the store cannot be
    reached, as for `history`); the store is not changed."""
    try:
        actions = store.export(game_id)
    except StoreOfflineError as error:
        print(one_line(f"hues-console export: {error}"), file=sys.stderr)
        return 1
    except StoreError as error:
        raise UsageError(f"hues-console export: {error}") from None
    for action in actions:
        print(json.dumps(action, ensure_ascii=False), file=out)
    return 0
