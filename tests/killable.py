"""The real `hues-console` command in a process of its own that a test can SIGKILL at any moment.

Starting a Python and importing the console costs about half a second on the shared CI machine;
the power-cut test starts the console some 60 times. So the processes are forked from a
multiprocessing fork server that has imported the console once: each is still a separate process
running `console.commands.main.main(args)` from the start, with its own open files, flocks and
threads, and SIGKILL ends it as it would end the console on the Pi.

What the command prints on stdout arrives line by line through a pipe, and the command waits at
each line until the test lets it go on: so a test that decides to pull the plug after the n-th
acknowledged action does so n actions in, however loaded the machine, and then picks the moment
(`go_on()`, a random pause, `kill()`).
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Iterator
from multiprocessing.connection import Connection

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["console.commands.main", "console.commands.session", "tests.killable"])


class _Lines:
    """stdout for the child: each complete line goes down the pipe, then waits for the go-ahead."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.pending = ""

    def write(self, text: str) -> int:
        self.pending += text
        while "\n" in self.pending:
            line, self.pending = self.pending.split("\n", 1)
            self.conn.send_bytes(line.encode())
            self.conn.recv_bytes()
        return len(text)

    def flush(self) -> None:
        pass


def _run(args: list[str], conn: Connection) -> None:
    from console.commands.main import main

    sys.stdout = _Lines(conn)
    sys.exit(main(args))


class Console:
    """One run of the command; iterate for its stdout lines, `kill()` pulls the plug."""

    def __init__(self, args: list[str]):
        ours, theirs = _CONTEXT.Pipe(duplex=True)
        self.process = _CONTEXT.Process(target=_run, args=(args, theirs), daemon=True)
        self.process.start()
        theirs.close()
        self._conn = ours
        self._waiting = False

    def __iter__(self) -> Iterator[str]:
        """Each line the command prints; it goes on once the loop body is done with the line."""
        while True:
            try:
                line = self._conn.recv_bytes().decode()
            except (EOFError, OSError):
                return
            self._waiting = True
            yield line
            self.go_on()

    def go_on(self) -> None:
        """Let the command go on after the line it printed last."""
        if self._waiting:
            self._waiting = False
            try:
                self._conn.send_bytes(b"go")
            except OSError:
                pass  # it is gone already

    def kill(self) -> None:
        self.process.kill()

    def wait(self, timeout_s: float = 60) -> int:
        self.process.join(timeout_s)
        self._conn.close()
        return self.process.exitcode
