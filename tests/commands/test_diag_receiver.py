"""`hues-console diag` with a network driver, and `diag --receiver HOST`: the receiver is asked
whether it is there, and a WLED's JSON API is read against the configuration. The WLED here is a
stand-in web server answering with the fields WLED's serializeInfo and serializeConfig write
(wled00/json.cpp, wled00/cfg.cpp at 6d16dc22), with WLED's defaults unless a test changes one."""

from __future__ import annotations

import copy
import http.server
import json
import threading
from pathlib import Path

import pytest

from console.commands import main as cli
from console.commands.diag import wled_findings
from hal.layout import Layout, LayoutOptions

INFO = {"ver": "0.15.0", "vid": 2412100, "name": "WLED", "live": False, "lm": "", "lip": "",
        "leds": {"count": 512, "pwr": 0, "fps": 42, "maxpwr": 850, "matrix": {"w": 32, "h": 16}}}
CONFIG = {"if": {"live": {"en": True, "mso": False, "port": 5568, "mc": False,
                          "dmx": {"uni": 1, "seqskip": False, "e131prio": 0, "addr": 1, "dss": 0, "mode": 4},
                          "timeout": 25, "maxbri": False, "no-gc": True, "offset": 0}},
          "hw": {"led": {"total": 512, "maxpwr": 850}}}
SETTINGS = {"host": "wled.local", "port": 4048, "keepalive_ms": 400, "http_port": 80}


def findings(info=INFO, cfg=CONFIG, driver="ddp", settings=SETTINGS, supply_ma=850.0, layout=None):
    return wled_findings(info, cfg, layout or Layout(LayoutOptions()), driver, settings, supply_ma)


def test_a_wled_as_documented_is_ok_but_for_force_max_brightness_which_it_leaves_off():
    lines = findings()
    assert lines[0] == "ok: WLED 0.15.0 named 'WLED', 512 LEDs as a 32x16 matrix"
    assert [line for line in lines if line.startswith("fix:")] == [
        "fix: WLED scales the console's frames by its own brightness (Sync Interfaces: tick \"Force max "
        "brightness\"): the console's brightness is the one to set"]
    live = copy.deepcopy(CONFIG)
    live["if"]["live"]["maxbri"] = True
    assert findings(cfg=live)[-1].startswith("ok: WLED's realtime settings suit the console")


@pytest.mark.parametrize("change, words", [
    (lambda i, c: c["if"]["live"].update({"no-gc": False}), "corrected twice"),
    (lambda i, c: c["if"]["live"].update({"timeout": 8}), "after 800 ms without frames, under two of the console's"),
    (lambda i, c: c["if"]["live"].update({"offset": 3}), "shifts realtime LEDs by 3"),
    (lambda i, c: i["leds"].update({"count": 300}), "WLED drives 300 LEDs, the panel section makes 512"),
    (lambda i, c: i["leds"].update({"matrix": {"w": 16, "h": 16}}), "WLED's matrix is 16x16, the console draws 32x16"),
    (lambda i, c: i["leds"].update({"maxpwr": 4000}),
     "limits the LEDs to 4000 mA, the console's limiter counts on 850"),
])
def test_each_wled_setting_that_would_change_the_picture_is_named_with_its_fix(change, words):
    info, cfg = copy.deepcopy(INFO), copy.deepcopy(CONFIG)
    cfg["if"]["live"]["maxbri"] = True
    change(info, cfg)
    assert any(line.startswith("fix:") and words in line for line in findings(info, cfg)), findings(info, cfg)


def test_e131_needs_wleds_universe_start_address_and_multi_rgb():
    settings = {"host": "wled.local", "port": 5568, "universe": 1, "keepalive_ms": 400, "http_port": 80}
    cfg = copy.deepcopy(CONFIG)
    cfg["if"]["live"]["maxbri"] = True
    assert not any(line.startswith("fix:") for line in findings(cfg=cfg, driver="e131", settings=settings))
    cfg["if"]["live"]["dmx"].update(mode=1, uni=3)
    assert any("set universe 1, start address 1 and mode Multi RGB (4)" in line
               for line in findings(cfg=cfg, driver="e131", settings=settings))


def test_a_scaled_matrix_is_compared_by_its_leds():
    layout = Layout(LayoutOptions(panel_width=32, panel_height=32, panels_across=2, scale=2))
    info = copy.deepcopy(INFO)
    info["leds"].update(count=2048, matrix={"w": 64, "h": 32})
    assert not any("LEDs, the panel" in line or "matrix is" in line for line in findings(info=info, layout=layout))


class Wled(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = {"/json/info": INFO, "/json/cfg": CONFIG}.get(self.path)
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(body or {}).encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def wled():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Wled)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def config_file(tmp_path: Path, http_port: int, name: str = "ddp") -> str:
    path = tmp_path / "console.yaml"
    path.write_text(f"driver:\n  name: {name}\n  ddp: {{host: 127.0.0.1, http_port: {http_port}}}\n"
                    f"power:\n  supply_amps: 0.85\n  pi_ma: 120\n")
    return str(path)


def test_diag_receiver_finds_a_wled_by_its_address(tmp_path, wled, capsys):
    assert cli.main(["diag", "--config", config_file(tmp_path, wled, name="auto"), "--receiver", "127.0.0.1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "the LED matrix at 127.0.0.1 answers"
    assert out[1] == "ok: WLED 0.15.0 named 'WLED', 512 LEDs as a 32x16 matrix"
    assert any("Force max brightness" in line for line in out)


def test_diag_receiver_says_when_the_matrix_does_not_answer(tmp_path, capsys):
    import socket

    with socket.socket() as gone:
        gone.bind(("127.0.0.1", 0))
        closed = gone.getsockname()[1]
    assert cli.main(["diag", "--config", config_file(tmp_path, closed), "--receiver", "127.0.0.1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("the LED matrix at 127.0.0.1 does not answer: no answer on its web port")
    assert "the console carries on" in out


def test_diag_receiver_takes_no_other_option(tmp_path, capsys):
    assert cli.main(["diag", "--receiver", "127.0.0.1", "--sim"]) == 2
    assert "goes with no other option" in capsys.readouterr().err
