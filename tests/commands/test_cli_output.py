"""Output that cannot be written (issue 21, Input): `palette > /dev/full` and `palette >&-` ended
with "unexpected OSError" / "unexpected AttributeError", exit 1. Every command's stdout, stderr
and output file on a full disk, closed, or a pipe nobody reads is one line and exit 2 (a reader
gone away, as after `| head`, stays the quiet 141 of a SIGPIPE, as `cat` does).

These run the real command in a process: the faults are in the file descriptors it starts with,
which an in-process capture would hide. Each run has a time bound as a sanity limit only."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.commands.test_cli import ROOT
from tests.game.test_record import EXAMPLE

BOUND_S = 60


@pytest.fixture
def files(tmp_path):
    (tmp_path / "console.yaml").write_text("store:\n  url: memory://\n")
    (tmp_path / "game.jsonl").write_text(EXAMPLE)
    (tmp_path / "script.txt").write_text("start\na\na\na\na\na\nwait 1\n")  # a game starts
    return tmp_path


# Commands that write to stdout, each its own way: print, a PNG to `-`, a JSON line per stored
# action, the wiring check's hints, argparse's help.
WRITERS = {
    "palette": ["palette"],
    "palette --json": ["palette", "--json"],
    "check-config": ["check-config"],
    "render json": ["render", "--record", "{dir}/game.jsonl"],
    "render --png -": ["render", "--record", "{dir}/game.jsonl", "--png", "-"],
    "replay --json": ["replay", "{dir}/game.jsonl", "--json"],
    "sim --report-actions": ["sim", "--headless", "--script", "{dir}/script.txt", "--report-actions"],
    "sim --state-json -": ["sim", "--headless", "--script", "{dir}/script.txt", "--state-json", "-"],
    "diag --headless": ["diag", "--headless", "--script", "{dir}/script.txt"],
    "screens": ["screens", "--out", "{dir}/screens"],
    "--help": ["palette", "--help"],
}


def run(files, argv, stdout=None, stderr=subprocess.PIPE, close=()):
    """The command with stdout/stderr as given, fds in `close` closed before it starts."""
    argv = [word.format(dir=files) for word in argv]
    env = {**os.environ, "HUES_CONFIG": str(files / "console.yaml")}
    env.pop("HUES_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "console.commands.main", *argv], cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, timeout=BOUND_S,
                          preexec_fn=(lambda: [os.close(fd) for fd in close]) if close else None)


def one_line(stderr: bytes) -> str:
    text = stderr.decode()
    assert text.endswith("\n") and text.count("\n") == 1 and text[:-1].isprintable(), text
    return text[:-1]


@pytest.mark.parametrize("argv", WRITERS.values(), ids=WRITERS.keys())
def test_stdout_on_a_full_disk_is_one_line_and_exit_2(files, argv):
    with open("/dev/full", "wb") as full:
        done = run(files, argv, stdout=full)
    assert (done.returncode, one_line(done.stderr)) == (
        2, "hues-console: cannot write to standard output (No space left on device)")


@pytest.mark.parametrize("name", ["palette", "render --png -", "sim --report-actions", "--help"])
def test_a_closed_stdout_is_one_line_and_exit_2(files, name):
    done = run(files, WRITERS[name], close=(1,))
    assert (done.returncode, one_line(done.stderr)) == (2, "hues-console: cannot write to standard output (it is closed)")


@pytest.mark.parametrize("name", ["palette", "replay --json"])
def test_stdout_and_stderr_both_unwritable_is_exit_2_and_nothing_else(files, name):
    with open("/dev/full", "wb") as full:
        assert run(files, WRITERS[name], stdout=full, stderr=full).returncode == 2
    assert run(files, WRITERS[name], close=(1, 2)).returncode == 2


@pytest.mark.parametrize("stderr", ["full", "closed", "a pipe nobody reads"])
def test_an_error_said_to_an_unwritable_stderr_is_still_exit_2(files, stderr):
    argv = ["render", "--record", "{dir}/missing.jsonl"]
    if stderr == "full":
        with open("/dev/full", "wb") as full:
            done = run(files, argv, stderr=full)
    elif stderr == "closed":
        done = run(files, argv, stderr=None, close=(2,))
    else:
        read, write = os.pipe()
        os.close(read)
        try:
            done = run(files, argv, stderr=write)
        finally:
            os.close(write)
    assert done.returncode == 2


def test_a_closed_stdout_is_not_taken_by_a_file_the_command_opens(files):
    """With fd 1 closed, the next open() gets its number, and the JSON printed after would go into
    that file: here the PNG the command writes first."""
    picture = files / "frame.png"
    done = run(files, ["render", "--record", "{dir}/game.jsonl", "--png", str(picture), "--json", "-"], close=(1,))
    assert (done.returncode, one_line(done.stderr)) == (2, "hues-console: cannot write to standard output (it is closed)")
    assert picture.read_bytes().startswith(b"\x89PNG") and b"pixels" not in picture.read_bytes()


def test_an_output_file_on_a_full_disk_is_one_line_and_exit_2(files):
    done = run(files, ["render", "--record", "{dir}/game.jsonl", "--png", "/dev/full"])
    assert done.returncode == 2 and one_line(done.stderr).startswith("/dev/full: cannot be written")


# --- commands that need a terminal -----------------------------------------------------------

NEED_A_TERMINAL = {
    "sim": ["sim"],
    "diag --sim": ["diag", "--sim"],
    "play (auto: the terminal simulator off a Pi)": ["play"],
    "play on sim-png": ["play", "--config", "{dir}/png.yaml"],
    "diag on sim-png": ["diag", "--config", "{dir}/png.yaml"],
}


STDINS = ["/dev/null", "closed", "a pipe", "a file"]
TERMINAL_CASES = [(name, stdin) for name in ("sim", "diag --sim") for stdin in STDINS] + [
    (name, stdin) for name, stdin in zip(list(NEED_A_TERMINAL)[2:], STDINS)]


@pytest.mark.parametrize("name, stdin", TERMINAL_CASES)
def test_a_command_that_needs_a_terminal_says_so_in_its_only_line(files, name, stdin):
    """`diag --sim < /dev/null` printed its boot-time line before the refusal; `sim <&-` was an
    AttributeError (exit 1)."""
    (files / "png.yaml").write_text(f"store:\n  url: memory://\ndriver:\n  name: sim-png\n  sim_png:\n"
                                    f"    path: {files / 'panel.png'}\n")
    argv = [word.format(dir=files) for word in NEED_A_TERMINAL[name]]
    env = {**os.environ, "HUES_CONFIG": str(files / "console.yaml")}
    read, write = os.pipe()
    source = {"/dev/null": subprocess.DEVNULL, "a pipe": read, "a file": open(files / "script.txt", "rb"),
              "closed": None}[stdin]
    try:
        done = subprocess.run([sys.executable, "-m", "console.commands.main", *argv], cwd=ROOT, env=env,
                              stdin=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=BOUND_S,
                              preexec_fn=(lambda: os.close(0)) if stdin == "closed" else None)
    finally:
        os.close(read), os.close(write)
        if stdin == "a file":
            source.close()
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    assert "standard input is not a terminal" in one_line(done.stderr)
    assert not (files / "panel.png").exists()  # nothing started


@pytest.mark.parametrize("argv", [["sim"], ["diag", "--sim"]])
def test_the_terminal_simulator_needs_its_stdout_to_be_the_terminal_too(files, argv):
    """Keys from a terminal, but the panel's escape codes would go to a file or a pipe."""
    leader, follower = os.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "console.commands.main", *argv], cwd=ROOT,
                              env={**os.environ, "HUES_CONFIG": str(files / "console.yaml")}, stdin=follower,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=BOUND_S)
    finally:
        os.close(leader), os.close(follower)
    assert (done.returncode, done.stdout) == (2, b"")
    assert "standard output is not one" in one_line(done.stderr)
