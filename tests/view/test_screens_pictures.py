"""The README's pictures of the panel are current: `hues-console screens` draws them again and
every picture matches the checked-in one pixel for pixel (and no picture is missing or extra)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from console.commands import main as cli
from console.commands.screens import scenes

CHECKED_IN = Path(__file__).parents[2] / "docs" / "screens"
README = Path(__file__).parents[2] / "README.md"


def pixels(path: Path) -> tuple:
    with Image.open(path) as image:
        return image.size, image.convert("RGB").tobytes()


def test_the_checked_in_pictures_are_what_the_renderer_draws_now(tmp_path, capsys):
    assert cli.main(["screens", "--out", str(tmp_path)]) == 0
    fresh = sorted(p.name for p in tmp_path.glob("*.png"))
    assert capsys.readouterr().out.split() == [str(tmp_path / f"{name}.png") for name, _, _ in scenes()]
    assert sorted(p.name for p in CHECKED_IN.glob("*.png")) == fresh, "run `hues-console screens`"
    stale = [name for name in fresh if pixels(tmp_path / name) != pixels(CHECKED_IN / name)]
    assert not stale, f"{', '.join(stale)} changed: run `hues-console screens` and commit docs/screens"


def test_the_readme_shows_every_screen():
    text = README.read_text()
    for name, _, _ in scenes():
        assert f"docs/screens/{name}.png" in text, name


def test_a_folder_that_cannot_be_made_is_one_line_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert cli.main(["screens", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{blocker / 'sub'}: cannot make the folder")
