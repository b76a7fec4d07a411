"""The `web:` section: the phones' server is off by default, and a bad value is one line."""

from __future__ import annotations

import socket

import pytest

from console.commands.wiring import attach_web, build_app
from console.config.loader import ConfigError, load_config
from console.web.server import WebServer, WebServerError
from tests.phones import web_config


def load(tmp_path, text: str):
    path = tmp_path / "console.yaml"
    path.write_text(text)
    return load_config(str(path), environ={}, etc_path=str(tmp_path / "none.yaml"))


def test_the_default_keeps_the_server_off_and_on_this_computer_only(tmp_path):
    web = load(tmp_path, "").web
    assert (web.enabled, web.address, web.port, web.host_pin) == (False, "127.0.0.1", 8080, "")
    web = load(tmp_path, 'web:\n  enabled: true\n  address: 0.0.0.0\n  port: 80\n  host_pin: "0042"\n').web
    assert (web.enabled, web.address, web.port, web.host_pin) == (True, "0.0.0.0", 80, "0042")


@pytest.mark.parametrize("line, message", [
    ("  port: 70000", "web.port: 70000 is out of range, expected 1 to 65535"),
    ("  enabled: yes please", "web.enabled: expected true or false, got 'yes please'"),
    ("  host_pin: 1234", 'web.host_pin: write the PIN in quotes ("1234") so leading zeros are kept'),
    ('  host_pin: "12a4"', "web.host_pin: expected 4 to 8 digits in quotes"),
    ('  host_pin: "123"', "web.host_pin: expected 4 to 8 digits in quotes"),
    ("  address: ''", "web.address: expected some text"),
])
def test_a_bad_web_value_is_one_line_naming_file_line_and_key(tmp_path, line, message):
    with pytest.raises(ConfigError) as error:
        load(tmp_path, f"web:\n{line}\n")
    assert len(error.value.problems) == 1
    assert f"console.yaml:2: {message}" in error.value.problems[0]


def test_a_port_in_use_is_one_line_before_anything_starts():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    config = web_config(port=port)
    app = build_app(config, "sim-headless", lambda events: [])
    try:
        with pytest.raises(WebServerError, match=rf"^web: cannot listen on 127.0.0.1:{port} \(Address already in use\)$"):
            attach_web(config, app)
        assert app.publisher is None and app.sources == []
    finally:
        taken.close()
        app.close()
    with pytest.raises(WebServerError, match=r"^web: cannot listen on 256.1.1.1:8080"):
        WebServer(None, "256.1.1.1", 8080)
