"""The commands that read game records: `replay` (a record file) and `history`, `export` (the store)."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from console.commands.common import UsageError, read_text
from console.config.files import input_name
from console.config.loader import one_line
from console.game.record import MAX_RECORD_BYTES, fold_record, parse_record, state_json, state_summary
from console.store.format import GameNotFoundError, StoreError, StoreOfflineError, history_line
from console.store.games import GameStore
from console.view.timeline import replay_timeline
from hal.picture import AnimationFormatError, animation_format, write_animation, write_atomic

VIDEO_FPS = 20  # enough for the fastest blink on the panel (the cursor's, 8 changes a second)
VIDEO_SCALE = 10  # pixels an LED: a 320 x 160 picture of the 32 x 16 panel
MAX_VIDEO_PIXELS = 6_000 * 32 * 16 * VIDEO_SCALE ** 2
"""The most pixels (frames x picture size) a video is made of: 6,000 frames at the default scale,
a long game (some 650 actions, 9 frames each at 20 a second). The pictures are made and written
one at a time (`write_animation`: memory stays flat however long the game), but each costs time:
without a limit the largest record allowed (1 MiB) at --fps 60 --scale 40 took two minutes (and
24 GB, when Pillow still held every picture)."""


def replay_main(path: str, as_json: bool, video: str | None = None, fps: float | None = None,
                scale: int | None = None) -> int:
    """`hues-console replay FILE [--json] [--video OUT]`: where the record ends, as a summary or
    the replay JSON; with --video, the whole game as the panel shows it, as an animation."""
    text = read_text(path, MAX_RECORD_BYTES)
    source = input_name(path)
    numbered = parse_record(text, source)
    state = fold_record(numbered, source)
    if video is not None:
        write_video(video, [action for _, action in numbered],
                    VIDEO_FPS if fps is None else fps, VIDEO_SCALE if scale is None else scale)
    print(json.dumps(state_json(state)) if as_json else state_summary(state))
    return 0


def write_video(path: str, actions: list, fps: float, scale: int) -> None:
    """The record's replay timeline sampled `fps` times a second, each change a frame."""
    try:
        format_name = animation_format(path)
    except AnimationFormatError as exc:
        raise UsageError(str(exc)) from None
    if not 1 <= fps <= 60:  # also refuses nan
        raise UsageError(f"--fps must be between 1 and 60, not {fps:g}")
    if not 1 <= scale <= 40:
        raise UsageError(f"--scale must be between 1 and 40 pixels an LED, not {scale}")
    frames = []
    for frame, _, length in replay_timeline(actions).frames(fps):
        frames.append((frame, length))
        if len(frames) * frame.width * frame.height * scale * scale > MAX_VIDEO_PIXELS:
            raise UsageError(f"{path}: the video would be too large (over {len(frames) - 1} frames at "
                             f"--scale {scale}): give a smaller --fps or --scale")
    try:
        write_atomic(path, lambda file: write_animation(file, frames, format_name, scale))
    except OSError as exc:
        raise UsageError(f"{path}: cannot be written ({exc.strerror or exc.__class__.__name__})") from None


def keeps_nothing(store: GameStore) -> str | None:
    """What to say instead of "nothing stored" when the store is memory://, which a command
    opens empty: the console's games were in the console's own memory, gone when it exited."""
    if not str(store.url).startswith("memory://"):
        return None
    return ("the game store is memory://, which keeps nothing once the console exits: set store.url "
            "to a redis:// address in the configuration to keep games")


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
        print(keeps_nothing(store) or "no games stored yet", file=out)
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
        note = keeps_nothing(store) if isinstance(error, GameNotFoundError) else None
        raise UsageError(f"hues-console export: {note or error}") from None
    for action in actions:
        print(json.dumps(action), file=out)  # ASCII: stored text never reaches the terminal raw
    return 0
