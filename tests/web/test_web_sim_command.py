"""`hues-console sim --web`: the command starts, serves its page, stops cleanly on SIGTERM, and
says in one line what is wrong with its arguments."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from console.commands import main as cli
from console.web.seats import CODE_LETTERS
from tests.phones import Phone, SimWeb

def test_sim_web_serves_the_page_and_stops_on_sigterm(tmp_path):
    config = tmp_path / "console.yaml"
    config.write_text("# the packaged defaults: nothing from this machine's /etc\n")
    with SimWeb(config) as sim:  # it printed its page's address, the phones' and the room code
        with urllib.request.urlopen(sim.base + "/panel", timeout=5) as answer:
            assert answer.status == 200
        assert set(sim.code) <= set(CODE_LETTERS)
        phone = Phone(sim.base)
        phone.send("join", code=sim.code)
        assert phone.expect("admitted")  # the code printed is the one the panel shows
        phone.close()
        with urllib.request.urlopen(sim.url, timeout=5) as answer:
            assert b'<script src="/panel.js" defer></script>' in answer.read()
        with urllib.request.urlopen(sim.url.replace("/sim", "/panel.js"), timeout=5) as answer:
            assert answer.headers["Content-Type"].startswith("text/javascript")
        assert sim.stop() == 0
    assert sim.errors() == ""


@pytest.mark.parametrize("args, message", [
    (["sim", "--port", "8080"], "--port goes with sim --web"),
    (["sim", "--web", "--headless"], "sim --web plays from the browser"),
    (["sim", "--web", "--port", "70000"], "--port must be between 1 and 65535"),
])
def test_sim_web_arguments_are_checked(capsys, monkeypatch, tmp_path, args, message):
    monkeypatch.setenv("HUES_CONFIG", str(tmp_path / "console.yaml"))
    (tmp_path / "console.yaml").write_text("# defaults\n")
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_port_in_use_is_one_line(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HUES_CONFIG", str(tmp_path / "console.yaml"))
    (tmp_path / "console.yaml").write_text("# defaults\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["sim", "--web", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and len(err.strip().splitlines()) == 1
