"""The replay timeline and the exported animation: a whole game as the panel shows it, in exact
colours. The files are decoded with Pillow and every frame is checked against the renderer at
the instant it starts."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image

from console.commands import main as cli
from console.game import rules
from console.game.board import ALL_CELLS
from console.game.record import dumps_record
from console.game.rules import ChooseTarget, Clue, NewGame, Next, Place
from console.view.palette import board_colors
from console.view.render import CURSOR_LOOK, CURSOR_S, FLICKERS, render
from console.view.screens import clue_seconds
from console.view.timeline import ATTRACT_AFTER_S, GUESS_S, attract_scene, replay_timeline
from console.view.ui import Ui
from hal.picture import encode_animation
from tests.play.test_whole_games import first_card_cell, near_guesser
from tests.scripting import plan_game


@pytest.fixture(scope="module")
def record():
    """A whole 3-player game with second clues and a pass, pawns near the targets."""
    _, _, actions = plan_game(3, "cards", 0, 5, target=first_card_cell, guess=near_guesser(5),
                              passes=lambda state: state.round % 3 == 0)
    return actions


@pytest.fixture(scope="module")
def timeline(record):
    return replay_timeline(record)


def decoded_frames(data: bytes) -> list[tuple[int, bytes]]:
    """(start in ms, RGB bytes) of every frame of an animation file, as Pillow decodes it."""
    image, out, start = Image.open(io.BytesIO(data)), [], 0
    for index in range(image.n_frames):
        image.seek(index)
        out.append((start, image.convert("RGB").tobytes()))
        start += image.info["duration"]
    return out


def test_the_timeline_walks_every_round_and_never_shows_the_secret(record, timeline):
    screens = [scene.ui.screen for scene in timeline.scenes]
    final = rules.replay(record)
    assert screens.count("reveal") == final.round
    assert screens.count("handoff") == final.round
    assert "secret" not in screens
    assert screens[-1] == "game_over" and timeline.scenes[-1].game == final
    places = [a for a in record if isinstance(a, rules.Place)]
    guesses = [s for s in timeline.scenes if s.ui.pending is not None]
    assert [(s.ui.pending.player, s.ui.pending.cell) for s in guesses] == [(a.player, a.cell) for a in places]
    for scene in guesses:
        assert scene.ui.pending in scene.game.pawns and scene.ui.cursor == scene.ui.pending.cell  # on the board
    for scene in timeline.scenes:
        assert scene.ui.since == scene.start
        assert timeline.scene_at(scene.start) is scene
        if scene.ui.screen not in ("reveal", "game_over") and scene.game.target is not None:
            elsewhere = replace(scene.game, target=next(c for c in ALL_CELLS if c != scene.game.target))
            for t in (scene.start, scene.start + 0.3, scene.start + 0.7):  # the target shows first at the reveal
                assert render(scene.game, scene.ui, t) == render(elsewhere, scene.ui, t), scene.caption


def test_a_record_cut_anywhere_in_a_round_shows_no_target_before_its_reveal(record):
    """What /replay would show of a game still under way: its last scene keeps the secret too."""
    end_of_round = next(i for i, a in enumerate(record) if isinstance(a, rules.Next))
    for cut in range(2, end_of_round + 1):
        last = replay_timeline(record[:cut]).scenes[-1]
        assert last.ui.screen in ("handoff", "play")  # the reveal waits for a press that never came
        elsewhere = replace(last.game, target=next(c for c in ALL_CELLS if c != last.game.target))
        for t in (last.start, last.start + 0.3, last.start + 0.7):
            assert render(last.game, last.ui, t) == render(elsewhere, last.ui, t), last.caption


def test_a_pawn_taken_back_leaves_the_board_and_the_next_one_shows(record):
    first = next(i for i, a in enumerate(record) if isinstance(a, rules.Place))
    placed = record[first]
    elsewhere = next(c for c in ALL_CELLS if c != placed.cell)
    changed = record[: first + 1] + [rules.TakeBack(), rules.Place(elsewhere, placed.player)] + record[first + 1 :]
    scenes = replay_timeline(changed).scenes
    at = next(i for i, s in enumerate(scenes) if s.ui.pending is not None)
    put, back, again = scenes[at : at + 3]
    assert rules.Pawn(placed.player, placed.cell) in put.game.pawns
    assert back.game.pawns == () and back.ui.cursor == placed.cell and back.ui.pending is None
    assert back.caption.endswith(f"takes back the pawn on {placed.cell}")
    assert again.ui.pending == rules.Pawn(placed.player, elsewhere) and again.game.pawns == (again.ui.pending,)


def test_scenes_follow_each_other_without_gaps(timeline):
    for before, after in zip(timeline.scenes, timeline.scenes[1:]):
        assert after.start == pytest.approx(before.end)
    assert timeline.scene_at(-1.0) is timeline.scenes[0]
    assert timeline.scene_at(timeline.duration + 5) is timeline.scenes[-1]


@pytest.mark.parametrize("format_name", ["PNG", "WEBP"])
def test_every_decoded_frame_is_the_renderers_at_its_instant(timeline, format_name):
    shown = list(timeline.frames(20))
    data = encode_animation([(frame, length) for frame, _, length in shown], format_name, scale=1, dots=False)
    decoded = decoded_frames(data)
    assert [start for start, _ in decoded] == [start for _, start, _ in shown]
    colours = set()
    for start, pixels in decoded:
        assert pixels == bytes(timeline.frame(start / 1000).pixels), f"frame at {start} ms"
        colours.update(pixels[i : i + 3] for i in range(0, len(pixels), 3))
    assert {bytes(rgb) for rgb in board_colors()} <= colours  # all 480, exact
    assert sum(length for _, _, length in shown) == round(timeline.duration * 1000)


def test_frames_are_sampled_at_the_asked_rate_and_only_changes_kept(timeline):
    shown = list(timeline.frames(20))
    assert all(start % 50 == 0 and length % 50 == 0 for _, start, length in shown)
    assert all(a[0] != b[0] for a, b in zip(shown, shown[1:]))
    guessing = [(scene.start, scene.start + scene.duration) for scene in timeline.scenes
                if scene.ui.screen == "play" and scene.game.phase in ("guess1", "guess2")]
    beat_ms = round(1000 * CURSOR_S)
    flicker_ms = round(beat_ms * (1 - CURSOR_LOOK) / FLICKERS)
    contrast_at = beat_ms - flicker_ms  # the last flicker step: the cursor's alone, no pawn changes then
    steps = [start for _, start, length in shown if length == flicker_ms and start % beat_ms == contrast_at
             and any(a <= start / 1000 < b for a, b in guessing)]
    assert len(steps) >= 3  # the cursor's flicker is in the file, not smoothed away


def test_a_dotted_animation_keeps_each_leds_colour_at_its_centre(timeline):
    part = [(frame, length) for frame, start, length in timeline.frames(20) if start < 5000]
    image = Image.open(io.BytesIO(encode_animation(part, "PNG", scale=6)))
    for index in (0, len(part) - 1):
        image.seek(index)
        rgb = image.convert("RGB")
        frame = part[index][0]
        for y in range(frame.height):
            for x in range(frame.width):
                assert rgb.getpixel((6 * x + 3, 6 * y + 3)) == frame.get(x, y)


def test_replay_video_command_writes_an_apng(tmp_path, record, timeline, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text(dumps_record(record))
    out = tmp_path / "game.png"
    assert cli.main(["replay", str(path), "--video", str(out), "--scale", "1", "--fps", "10"]) == 0
    assert "phase game_over" in capsys.readouterr().out  # the summary still comes
    image = Image.open(out)
    assert image.format == "PNG" and getattr(image, "is_animated", False)
    assert image.size == (32, 16)
    decoded = decoded_frames(out.read_bytes())
    assert decoded[0][1] == bytes(timeline.frame(0).pixels)


@pytest.mark.parametrize("args, message", [
    (["--video", "OUT.gif"], "GIF keeps only 256"),
    (["--video", "OUT.webp", "--fps", "0"], "--fps must be between 1 and 60"),
    (["--video", "OUT.webp", "--fps", "nan"], "--fps: expected a number in digits 0-9"),
    (["--video", "OUT.png", "--scale", "0"], "--scale must be between 1 and 40"),
    (["--scale", "3"], "--fps and --scale go with replay --video OUT"),
])
def test_replay_video_refuses_bad_arguments_in_one_line(tmp_path, record, capsys, args, message):
    path = tmp_path / "game.jsonl"
    path.write_text(dumps_record(record))
    args = [a.replace("OUT", str(tmp_path / "out")) for a in args]
    assert cli.main(["replay", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.glob("out*"))


def test_a_bad_record_writes_no_video(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text('{"action": "new_game", "players": 3}\n{"action": "place", "cell": "Z99"}\n')
    assert cli.main(["replay", str(path), "--video", str(tmp_path / "out.webp")]) == 2
    assert capsys.readouterr().err.startswith(f"{path}:2:")
    assert not (tmp_path / "out.webp").exists()


def test_an_unfinished_record_ends_on_its_last_state(record):
    cut = next(i for i, a in enumerate(record) if isinstance(a, rules.Place)) + 1
    timeline = replay_timeline(record[:cut])
    last = timeline.scenes[-1]
    assert last.game == rules.replay(record[:cut]) and last.ui.screen == "play"
    assert timeline.scenes[-2].ui.pending is not None and timeline.scenes[-2].duration == GUESS_S


# --- the idle board's attract loop --------------------------------------------------------------


def test_attract_loop_takes_turns_with_the_idle_board(timeline):
    reveals = timeline.reveals()
    screens = {scene.ui.screen for scene in reveals.scenes}
    assert screens == {"reveal", "game_over"}
    ui = Ui(store_online=False, hold_progress=0.25)
    assert attract_scene(reveals, ui, 0.0) is None
    assert attract_scene(reveals, ui, ATTRACT_AFTER_S - 0.01) is None
    game, shown, t = attract_scene(reveals, ui, ATTRACT_AFTER_S + 0.5)
    first = reveals.scenes[0]
    assert (game, t) == (first.game, pytest.approx(0.5))
    assert shown == replace(first.ui, store_online=False, hold_progress=0.25)  # the host still sees these
    cycle = ATTRACT_AFTER_S + reveals.duration
    assert attract_scene(reveals, ui, cycle + 1.0) is None  # the board again, then the reveals again
    assert attract_scene(reveals, ui, cycle + ATTRACT_AFTER_S + 0.5)[0] == first.game


def test_attract_loop_keeps_the_full_disks_red_dot(timeline):
    reveals = timeline.reveals()
    _, shown, t = attract_scene(reveals, Ui(disk_full=True), ATTRACT_AFTER_S + 0.1)
    assert shown.disk_full
    assert render(reveals.scenes[0].game, shown, t).get(31, 15) == (255, 0, 0)


def test_no_stored_game_no_attract_loop():
    assert attract_scene(replay_timeline([rules.NewGame(players=3)]).reveals(), Ui(), ATTRACT_AFTER_S + 1) is None


def test_a_video_too_large_to_hold_is_refused_early_in_one_line(tmp_path, capsys, monkeypatch):
    """Pillow holds every frame until the end: the largest record allowed (1 MiB of pawns placed
    and taken back) at --fps 60 --scale 40 took 24 GB. Here the limit is lowered to keep it quick."""
    from console.commands import records

    monkeypatch.setattr(records, "MAX_VIDEO_PIXELS", 100 * 32 * 16 * 40 * 40)
    path = tmp_path / "game.jsonl"
    path.write_text('{"action": "new_game", "players": 3, "seed": 1, "first_giver": 0, "variant": "free"}\n'
                    '{"action": "choose_target", "cell": "H15"}\n{"action": "clue"}\n'
                    + '{"action": "place", "cell": "G14"}\n{"action": "take_back"}\n' * 200)
    out = tmp_path / "out.webp"
    assert cli.main(["replay", str(path), "--video", str(out), "--fps", "60", "--scale", "40"]) == 2
    err = capsys.readouterr().err
    assert "too large" in err and "--scale" in err and err.count("\n") == 1
    assert not out.exists()


def pillows_own(frames, format_name: str, scale: int, dots: bool = True) -> bytes:
    """What Pillow's writer makes of every picture handed over at once: the encoder before the
    streaming one, which kept every picture in memory until the file was written."""
    from hal.picture import _ANIMATION_OPTIONS, frame_image

    pictures = [frame_image(frame, scale, dots) for frame, _ in frames]
    out = io.BytesIO()
    pictures[0].save(out, format=format_name, save_all=True, append_images=pictures[1:],
                     duration=[ms for _, ms in frames], loop=0, **_ANIMATION_OPTIONS[format_name])
    return out.getvalue()


@pytest.mark.parametrize("format_name", ["PNG", "WEBP"])
def test_the_streamed_video_is_byte_for_byte_what_pillow_writes(timeline, format_name):
    frames = [(frame, length) for frame, _, length in timeline.frames(20)][:60]
    still = frames[3][0]
    cases = {
        "a game": frames,
        "a picture repeated (its time is added to the frame before)": [*frames[:5], (still, 50), (still, 70), *frames[5:9]],
        "one frame": frames[:1],
        "one picture twice": [(still, 40), (still, 40)],
        "without dots": frames[:12],
    }
    for name, case in cases.items():
        dots = name != "without dots"
        assert encode_animation(case, format_name, scale=3, dots=dots) == pillows_own(case, format_name, 3, dots), name


@pytest.mark.parametrize("format_name", ["PNG", "WEBP"])
def test_the_video_holds_one_picture_at_a_time(timeline, format_name, monkeypatch):
    """Every picture made is let go before many more are: memory stays flat however long the game
    (Pillow's writer alone kept a copy of each, 0.2 MB a frame at the default scale)."""
    import gc

    from hal import picture

    made, most = [0], [0]
    make = picture.frame_image

    def counted(*args, **kwargs):
        image = make(*args, **kwargs)
        made[0] += 1
        if made[0] % 10 == 0:  # how many pictures of that size are alive (copies included)
            gc.collect()
            held = sum(isinstance(o, Image.Image) and o.size == image.size for o in gc.get_objects())
            most[0] = max(most[0], held)
        return image

    monkeypatch.setattr(picture, "frame_image", counted)
    frames = [(frame, length) for frame, _, length in timeline.frames(20)][:80]
    encode_animation(frames, format_name, scale=2)
    assert made[0] >= 80 and most[0] <= 6


def test_the_video_shows_a_typed_clue_when_it_was_given_and_again_at_the_reveal(tmp_path, capsys):
    """`replay --video` draws from the renderer: a record's typed clues are in the file, the
    clue screen where each was given and the clues' stage of the reveal."""
    cells = ALL_CELLS
    actions = [NewGame(3, 5, 0, "free"), ChooseTarget(cells[100]), Clue(("tramonto",), "it", True),
               Place(cells[0], 1), Place(cells[1], 2), Clue(("cielo", "sereno"), "it", True),
               Place(cells[2], 2), Place(cells[3], 1), Next()]
    timeline = replay_timeline(actions)
    given = [scene for scene in timeline.scenes if scene.ui.clue_screen]
    assert [scene.game.clues[-1].words for scene in given] == [("tramonto",), ("cielo", "sereno")]
    reveal = next(scene for scene in timeline.scenes if scene.ui.screen == "reveal")
    assert reveal.ui.reveal_clues == clue_seconds(reveal.game.clues)
    path = tmp_path / "game.jsonl"
    path.write_text(dumps_record(actions))
    out = tmp_path / "game.png"
    assert cli.main(["replay", str(path), "--video", str(out), "--scale", "1", "--fps", "10"]) == 0
    capsys.readouterr()
    decoded = {pixels for _, pixels in decoded_frames(out.read_bytes())}
    for scene in given:
        assert bytes(render(scene.game, scene.ui, scene.start + 0.05).pixels) in decoded
    at = reveal.start + reveal.ui.reveal_at("clues") + 0.05
    assert bytes(render(reveal.game, reveal.ui, at).pixels) in decoded
