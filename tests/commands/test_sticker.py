"""`hues-console sticker`: the box's address as a QR code, for the phones."""

from __future__ import annotations

import pytest
import segno
from PIL import Image

from console.commands.common import UsageError
from console.commands.main import main
from console.commands.sticker import box_url


def test_the_address_phones_open():
    assert box_url("0.0.0.0", 8080, hostname="hues") == "http://hues.local:8080/"
    assert box_url("::", 80, hostname="hues") == "http://hues.local/"
    assert box_url("192.168.1.20", 8080) == "http://192.168.1.20:8080/"
    assert box_url("fe80::1", 8080) == "http://[fe80::1]:8080/"
    with pytest.raises(UsageError, match="phones cannot reach it"):
        box_url("127.0.0.1", 8080)


def modules(path, scale=10, border=4) -> list[list[bool]]:
    """The QR code's dark modules read back from the picture."""
    image = Image.open(path).convert("L")
    size = image.width // scale - 2 * border
    return [[image.getpixel(((border + x) * scale + scale // 2, (border + y) * scale + scale // 2)) < 128
             for x in range(size)] for y in range(size)]


def test_the_sticker_is_the_qr_code_of_the_address(tmp_path, capsys):
    config = tmp_path / "web.yaml"
    config.write_text("web:\n  enabled: true\n  address: 10.0.0.7\n  port: 8080\n")
    out = tmp_path / "sticker.png"
    assert main(["sticker", "--config", str(config), "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"{out}: a QR code for http://10.0.0.7:8080/\n"
    expected = [[bool(v) for v in row] for row in segno.make("http://10.0.0.7:8080/", error="m").matrix]
    assert modules(out) == expected
    svg = tmp_path / "sticker.svg"
    assert main(["sticker", "--config", str(config), "--out", str(svg), "--url", "http://hues.local:8080/"]) == 0
    assert "http://hues.local:8080/" in svg.read_text()


@pytest.mark.parametrize("args, message", [
    (["--out", "x.gif"], "x.gif: the sticker is written as .svg, .png, .pdf, .eps: name the file so"),
    (["--out", "x.svg", "--url", "javascript:alert(1)"], "--url 'javascript:alert(1)': expected an http:// address"),
    (["--out", "/nonexistent/dir/x.svg", "--url", "http://a/"], "/nonexistent/dir/x.svg: cannot be written"),
])
def test_bad_arguments_are_one_line_and_status_2(args, message, capsys):
    assert main(["sticker", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_on_the_default_config_it_says_in_one_line_what_to_set_and_where(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HUES_CONFIG", raising=False)
    config = tmp_path / "console.yaml"
    config.write_text("# the packaged defaults\n")
    assert main(["sticker", "--config", str(config), "--out", str(tmp_path / "x.svg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and not (tmp_path / "x.svg").exists()
    assert f"set web.enabled: true and web.address: 0.0.0.0 in {config}" in err
