"""The console as a systemd service: sd_notify over $NOTIFY_SOCKET (READY at the first frame,
watchdog pings only while frames are drawn), the time from power-on to the first frame in the
log and in `diag`, and log lines at INFO reaching the journal (stderr)."""

from __future__ import annotations

import logging
import os
import socket

import pytest

from console.commands.diag import boot_time_line
from console.commands.main import configure_logging
from console.commands.wiring import build_output
from console.config.loader import load_config
from console.play.app import BOOT_TO_FIRST_FRAME, ConsoleApp
from console.play.loop import run_virtual
from console.play.sd_notify import SystemdNotifier
from console.store.games import GameStore
from hal.inputs.events import EventQueue


class NotifySocket:
    """systemd's end of $NOTIFY_SOCKET: an AF_UNIX datagram socket (abstract, as systemd 252 uses
    /run/systemd/notify; a path works the same)."""

    def __init__(self, tmp_path, abstract=False):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            name = f"hues-test-{os.getpid()}-{id(self)}"
            self.sock.bind("\0" + name)
            self.env = "@" + name
        else:
            path = str(tmp_path / "notify")
            self.sock.bind(path)
            self.env = path
        self.sock.setblocking(False)

    def messages(self) -> list[list[str]]:
        out = []
        while True:
            try:
                out.append(self.sock.recv(4096).decode().split("\n"))
            except BlockingIOError:
                return out

    def close(self):
        self.sock.close()


@pytest.fixture(params=[False, True], ids=["path", "abstract"])
def systemd(tmp_path, request):
    notify = NotifySocket(tmp_path, abstract=request.param)
    yield notify
    notify.close()


def test_ready_once_then_watchdog_pings_at_half_the_interval(systemd):
    notifier = SystemdNotifier({"NOTIFY_SOCKET": systemd.env, "WATCHDOG_USEC": "15000000"}, pid=42)
    assert notifier.ping_every_s == 7.5
    for t in range(33):  # pings at 8, 16, 24 and 32 s
        notifier.frame_drawn(float(t), status="idle board")
    assert systemd.messages() == [["READY=1", "STATUS=idle board"],
                                  ["WATCHDOG=1"], ["WATCHDOG=1"], ["WATCHDOG=1"], ["WATCHDOG=1"]]


def test_a_watchdog_meant_for_another_process_is_not_pinged(systemd):
    notifier = SystemdNotifier({"NOTIFY_SOCKET": systemd.env, "WATCHDOG_USEC": "2000000",
                                "WATCHDOG_PID": "1"}, pid=42)
    for t in range(10):
        notifier.frame_drawn(float(t))
    assert systemd.messages() == [["READY=1"]]


def test_outside_systemd_nothing_is_sent():
    notifier = SystemdNotifier({})
    notifier.frame_drawn(0.0)
    assert notifier.send("READY=1") is False and notifier.ping_every_s is None


def test_a_vanished_socket_is_one_warning_not_a_crash(tmp_path, caplog):
    notifier = SystemdNotifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    with caplog.at_level(logging.WARNING, logger="hues-console"):
        assert notifier.send("READY=1") is False
        assert notifier.send("WATCHDOG=1") is False
    assert len(caplog.records) == 1 and "cannot notify systemd" in caplog.records[0].getMessage()


def test_the_console_is_ready_at_its_first_frame_and_pings_only_while_it_draws(tmp_path, systemd, caplog):
    config = load_config(None, environ={}, etc_path=str(tmp_path / "none.yaml"))
    stage, driver = build_output(config, "sim-headless")
    store = GameStore("memory://")
    notifier = SystemdNotifier({"NOTIFY_SOCKET": systemd.env, "WATCHDOG_USEC": "1000000"})
    app = ConsoleApp(stage, driver, EventQueue(), [], store, notifier=notifier, boot_clock=lambda: 7.25)
    with caplog.at_level(logging.INFO, logger="hues-console"):
        run_virtual(app, 60, lambda: True, settle_s=3.0)
    messages = systemd.messages()
    assert messages[0] == ["READY=1"]
    assert 5 <= messages.count(["WATCHDOG=1"]) <= 7  # 3 s of frames, a ping every 0.5 s
    assert "first frame 7.25 s after the kernel started" in caplog.text
    assert store.get_setting(BOOT_TO_FIRST_FRAME) == 7.25
    assert systemd.messages() == []  # a loop that stops ticking sends nothing more


def test_diag_prints_the_boot_time_of_the_last_start():
    assert boot_time_line(7.25).startswith("boot to first frame: 7.2 s after the kernel started")
    assert "not measured yet" in boot_time_line(None)
    assert "not measured yet" in boot_time_line("7")


def test_info_lines_reach_stderr_when_the_unit_asks(capsys, monkeypatch):
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    configure_logging({"HUES_LOG_LEVEL": "INFO"})
    logging.getLogger("hues-console").info("shutdown button held: powering off")
    assert "INFO hues-console: shutdown button held: powering off" in capsys.readouterr().err
    monkeypatch.setattr(root, "handlers", [])
    configure_logging({"HUES_LOG_LEVEL": "LOUD"})  # an unknown level: the quiet default
    assert root.level == logging.WARNING


def test_a_device_that_a_restart_picks_up_exits_75_so_systemd_restarts(tmp_path, capsys):
    from console.commands.session import run_interactive
    from hal.drivers.leds_dev import DeviceNotReadyError

    config = load_config(None, environ={}, etc_path=str(tmp_path / "none.yaml"))

    def build(name, sources, hint, box):
        raise DeviceNotReadyError("/dev/leds0 appeared after the service started")

    assert run_interactive(config, "leds-dev", build) == os.EX_TEMPFAIL == 75
    assert "appeared after the service started" in capsys.readouterr().err


def test_diag_starts_with_the_boot_time_line(tmp_path, capsys, monkeypatch):
    from console.commands import session
    from console.commands.diag import diag_main
    from hal.inputs.events import PRESS, QUIT, InputEvent

    class QuitAtOnce:  # the keyboard of a terminal the check was given
        def __init__(self, events):
            events.put(InputEvent(QUIT, PRESS, 0.0))

        def poll(self, now):
            pass

    config = tmp_path / "console.yaml"
    config.write_text(f"store:\n  url: memory://\ndriver:\n  name: sim-png\n  sim_png:\n"
                      f"    path: {tmp_path / 'panel.png'}\n")
    monkeypatch.setattr(session, "need_terminal", lambda name, command: None)
    monkeypatch.setattr(session, "open_keyboard", QuitAtOnce)
    assert diag_main(str(config), simulator=False, script=None, png=None) == 0
    assert capsys.readouterr().out.startswith("boot to first frame: not measured yet")
