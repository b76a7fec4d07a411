"""A game record played back as the panel shows it: the replay timeline.

A record has no clock (it is the list of actions), so playback gives each moment of a round a
fixed length: the hand-off to the giver, the first clue (a written one's words as the panel
showed them), every pawn placed (or taken back) with the cursor on its cell, the second clue or
the pass, the whole reveal (frame, the written clues, points, scoreboard), and the celebration at
the end. The giver's secret choice is never shown:
the target appears at the reveal, as it did at the table.

A `Timeline` is plain data, a tuple of `Scene`s, each a game state and the UI state the panel
drew it with from `start` for `duration` seconds (the scene's `ui.since` is its start, so the
renderer's animations run from there). The video export, the browser's replay and the idle
board's attract loop all draw `render(scene.game, scene.ui, t)` for the scene at t.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator

from console.game import rules
from console.game.record import action_from_json
from console.game.rules import Action, Clue, GameState, Next, Place, Redeal, SkipClue, TakeBack
from console.view import screens
from console.view.moment import first_change
from console.view.hints import clue_text, player_name, player_names
from console.view.render import ROOM_CODE_Y, render, render_timed
from console.view.ui import CENTRE, REVEAL_SCORES_S, SCOREBOARD_PAGE_S, Ui
from hal.frame import Frame

HANDOFF_S = 1.5  # a round starts: the controls pass to the giver
CLUE_S = 2.5  # the first clue (the board, the giver in the status columns)
GUESS_S = 1.2  # one pawn placed, the cursor on it
SECOND_CLUE_S = 1.5  # CLUE or PASS, the giver's choice lit
REVEAL_S = REVEAL_SCORES_S + 2 * SCOREBOARD_PAGE_S  # frame, points, then two scoreboard pages
TIEBREAK_S = 2.5
GAME_OVER_S = 5.0
END_S = 3.0  # a record that stops mid-game: its last state
ATTRACT_AFTER_S = 45.0  # untouched that long, the idle board plays the last game's reveals


@dataclass(frozen=True)
class Scene:
    game: GameState
    ui: Ui
    start: float
    duration: float
    caption: str  # what happens, for the browser's step-by-step replay

    @property
    def end(self) -> float:
        return self.start + self.duration


@dataclass(frozen=True)
class Timeline:
    scenes: tuple[Scene, ...]
    _starts: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_starts", tuple(scene.start for scene in self.scenes))

    @property
    def duration(self) -> float:
        return self.scenes[-1].end if self.scenes else 0.0

    def scene_at(self, t: float) -> Scene:
        """The scene shown at time t (the first before 0, the last from its start on)."""
        if not self.scenes:
            raise ValueError("an empty timeline shows nothing")
        return self.scenes[max(0, bisect.bisect_right(self._starts, t) - 1)]

    def frame(self, t: float, width: int = 32, height: int = 16) -> Frame:
        """What the panel shows at time t of the playback."""
        scene = self.scene_at(t)
        return render(scene.game, scene.ui, t, width, height)

    def next_start(self, t: float) -> float:
        """When the scene after the one at t starts (inf: that is the last)."""
        later = bisect.bisect_right(self._starts, t)
        return self._starts[later] if later < len(self._starts) else math.inf

    def frame_timed(self, t: float, width: int = 32, height: int = 16) -> tuple[Frame, float]:
        """The frame at t and the first later time at which the playback can show another."""
        scene = self.scene_at(t)
        frame, until = render_timed(scene.game, scene.ui, t, width, height)
        return frame, min(until, self.next_start(t))

    def frames(self, fps: float, width: int = 32, height: int = 16) -> Iterator[tuple[Frame, int, int]]:
        """(frame, start, length) in whole milliseconds, for every change of the playback
        sampled `fps` times a second: what an animation file holds. A sample falls at
        `start / 1000` seconds exactly, so a decoded frame can be checked against the renderer."""
        if not fps > 0:
            raise ValueError(f"frames per second must be above 0, not {fps!r}")
        end_ms, i = round(self.duration * 1000), 0
        shown, shown_at, ms = None, 0, 0
        while ms < end_ms:
            frame, until = self.frame_timed(ms / 1000, width, height)
            if frame != shown:
                if shown is not None:
                    yield shown, shown_at, ms - shown_at
                shown, shown_at = frame, ms
            # the samples before `until` show this frame again: go to the first one at or after it
            i = max(i + 1, math.ceil(min(until, self.duration) * fps) - 1)
            while round(i * 1000 / fps) / 1000 < until and round(i * 1000 / fps) < end_ms:
                i += 1
            ms = round(i * 1000 / fps)
        if shown is not None:
            yield shown, shown_at, end_ms - shown_at

    def reveals(self) -> Timeline:
        """Only each round's reveal and the end: the idle board's attract loop. Its game over is
        the one after the cheer, its ripples calm: nobody cheers at a box left idle, and the
        cheer's 6 steps a second (128 LEDs each) made the loop's densest 10 s, 3.2 wake-ups a
        second against 1.9 without it."""
        shown = timed(s for s in self.scenes if s.ui.screen in ("reveal", "game_over")).scenes
        return Timeline(tuple(_after_the_cheer(s) if s.ui.screen == "game_over" else s for s in shown))


def _after_the_cheer(scene: Scene) -> Scene:
    """The game-over scene as its screen shows once the room has cheered (screens.CHEER_S)."""
    return replace(scene, ui=replace(scene.ui, since=scene.ui.since - screens.CHEER_S))


def attract_scene(reveals: Timeline, ui: Ui, idle_s: float) -> tuple[GameState, Ui, float] | None:
    """What the idle board shows after `idle_s` seconds untouched: None for the board itself,
    else (game, ui, t) to render, a moment of the last game's reveals. The board and the
    reveals take turns, ATTRACT_AFTER_S of board first; what the host must see on any screen
    (the shutdown hold, a store outage, a full disk) stays from `ui`."""
    if not reveals.scenes:
        return None
    t = idle_s % (ATTRACT_AFTER_S + reveals.duration) - ATTRACT_AFTER_S
    if t < 0:
        return None
    scene = reveals.scene_at(t)
    shown = replace(scene.ui, store_online=ui.store_online, disk_full=ui.disk_full,
                    hold_progress=ui.hold_progress)
    return scene.game, shown, t


def attract_frame(reveals: Timeline, ui: Ui, idle_s: float, width: int = 32, height: int = 16) -> Frame | None:
    """The attract loop's frame after `idle_s` seconds untouched on the idle board, or None while
    the board itself shows. The phones' room code stays on the board, as on the idle board, but
    not on the points, the scoreboard or the winners: its box would hide the second line of
    numbers and the winners' colours."""
    return attract_timed(reveals, ui, idle_s, 0.0, width, height)[0]


def attract_timed(reveals: Timeline, ui: Ui, now: float, idle_since: float, width: int = 32,
                  height: int = 16) -> tuple[Frame | None, float]:
    """`attract_frame` at `now` for a board untouched since `idle_since`, and the first later
    time at which it can change: within the scene (as `render_timed` says), at the next scene,
    or where the loop turns (from the board to the reveals and back)."""
    if not reveals.scenes:
        return None, math.inf
    shown = attract_scene(reveals, ui, now - idle_since)
    frame, ends = None, 0.0  # the board shows until the reveals start, at 0 on their clock
    if shown is not None:
        game, scene_ui, t = shown
        frame, ends = render_timed(game, scene_ui, t, width, height)
        if ui.room_code and scene_ui.screen == "reveal" and scene_ui.reveal_stage(t) == "frame":
            screens.room_code(frame, ROOM_CODE_Y, ui.room_code)
        ends = min(ends, reveals.next_start(t))
    cycle = ATTRACT_AFTER_S + reveals.duration

    def turn(n: float) -> tuple[float, bool]:  # which round of the loop, and whether `ends` has come
        idle_s = n - idle_since
        return idle_s // cycle, idle_s % cycle - ATTRACT_AFTER_S >= ends

    idle_s = now - idle_since
    guess = min(now + ends - (idle_s % cycle - ATTRACT_AFTER_S), idle_since + (idle_s // cycle + 1) * cycle)
    return frame, first_change(turn, now, turn(now), guess)


def timed(scenes: Iterable[Scene]) -> Timeline:
    """The scenes one after another from 0, each keeping its length."""
    out, start = [], 0.0
    for scene in scenes:
        out.append(replace(scene, start=start, ui=replace(scene.ui, since=start)))
        start += scene.duration
    return Timeline(tuple(out))


def replay_timeline(actions: Iterable[Action], ui: Ui = Ui()) -> Timeline:
    """The timeline of a whole record (already checked: an illegal action raises RuleError).
    `ui` supplies what is not the game's (brightness, the pawn colours of the set-up screen)."""
    scenes: list[Scene] = []
    state: GameState | None = None
    for action in actions:
        before, state = state, rules.apply(state, action)
        if before is None:
            continue
        scenes.append(_moment(before, state, action, ui))
        if isinstance(action, Next) and state.tiebreak and not before.tiebreak:
            scenes.append(_scene(state, ui, "tiebreak", TIEBREAK_S, f"Tie-break between {player_names(state, state.tied)}"))
    if state is None:
        raise rules.RuleError("the record is empty: it needs a new_game")
    scenes.append(_last(state, ui))
    return timed(scenes)



def stored_timeline(record: Iterable[Any]) -> Timeline:
    """The timeline of a stored game, from its record's decoded lines as the store exports them
    (the attract loop's and the browser replay's one reading); RuleError at the first line that
    is not a legal action."""
    return replay_timeline(action_from_json(obj) for obj in record)


def _moment(before: GameState, after: GameState, action: Action, ui: Ui) -> Scene:
    """The panel as `action` took `before` to `after`: a pawn placed or taken back is shown on
    the board it changed, with the cursor on it; anything else as the panel asked for it."""
    if isinstance(action, Place):
        pawn = after.pawns[-1]
        return _scene(after, ui, "play", GUESS_S, f"{player_name(after, pawn.player)} places a pawn on {pawn.cell}",
                      cursor=pawn.cell, pending=pawn)
    if isinstance(action, TakeBack):
        pawn = before.pawns[-1]
        return _scene(after, ui, "play", GUESS_S, f"{player_name(after, pawn.player)} takes back the pawn on {pawn.cell}",
                      cursor=pawn.cell)
    phase, giver = before.phase, player_name(before, before.giver)
    if isinstance(action, Redeal):
        return _scene(after, ui, "handoff", HANDOFF_S, f"Round {before.round}: {giver}'s colour changed hands: a new card")
    if phase == "choose_target":
        return _scene(before, ui, "handoff", HANDOFF_S, f"Round {before.round}: {giver} gives the cue")
    which = {"clue1": "first", "clue2": "second"}.get(phase)
    if isinstance(action, Clue) and action.written:  # its words, as the panel showed them when given
        shown = screens.clue_seconds((action,))
        return _scene(after, ui, "play", shown, f'{giver} gives the {which} clue: "{clue_text(action.words)}"',
                      clue_screen=shown)
    if phase == "clue1":
        return _scene(before, ui, "play", CLUE_S, f"{giver} gives the first clue")
    if phase == "clue2":
        passed = isinstance(action, SkipClue)
        return _scene(before, ui, "play", SECOND_CLUE_S,
                      f"{giver} passes" if passed else f"{giver} gives a second clue", choice=int(passed))
    clues = screens.clue_seconds(before.clues)  # round_over: next
    return _scene(before, ui, "reveal", REVEAL_S + clues, _reveal_caption(before), reveal_clues=clues)


def _last(state: GameState, ui: Ui) -> Scene:
    """The record's end: the celebration, or where a game still under way stands (a round whose
    last pawn is down but whose reveal nobody has pressed for stays unrevealed, as on the panel)."""
    if state.phase == "game_over":
        verb = "wins" if len(state.winners) == 1 else "win"
        return _scene(state, ui, "game_over", GAME_OVER_S, f"{player_names(state, state.winners)} {verb}")
    screen = "handoff" if state.phase == "choose_target" else "play"
    return _scene(state, ui, screen, END_S, f"The record stops in round {state.round} ({state.phase})")


def _scene(state: GameState, ui: Ui, screen: str, duration: float, caption: str, **changes) -> Scene:
    shown = replace(ui, screen=screen, since=0.0, cursor=changes.pop("cursor", CENTRE),
                    pending=changes.pop("pending", None), choice=changes.pop("choice", 0),
                    refused=None, clue_screen=changes.pop("clue_screen", 0.0),
                    reveal_clues=changes.pop("reveal_clues", 0.0))
    return Scene(state, shown, 0.0, duration, caption)


def _reveal_caption(state: GameState) -> str:
    points = ", ".join(f"{player_name(state, p)} +{n}" for p, n in enumerate(state.last_round_points))
    said = [f'"{clue_text(clue.words)}"' for clue in state.clues if clue.written]
    clues = f" ({'clues' if len(said) > 1 else 'clue'} {' then '.join(said)})" if said else ""
    return f"Round {state.round}: the target was {state.target_revealed}{clues}; {points}"
