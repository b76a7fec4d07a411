"""The real `hues-console` command in a process of its own that a test can SIGKILL at any moment.

Starting a Python and importing the console costs about half a second on the shared CI machine;
the power-cut test starts the console some 60 times. So the processes are forked from a
multiprocessing fork server that has imported the console once: each is still a separate process
running `console.commands.main.main(args)` from the start, with its own open files, flocks and
threads, and SIGKILL ends it as it would end the console on the Pi. What the command prints on
stdout arrives line by line through a pipe, written before `print` returns.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Iterator
from multiprocessing.connection import Connection

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["console.commands.main", "console.commands.session", "tests.killable"])


class _Lines:
    """stdout for the child: each complete line goes down the pipe at once."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.pending = ""

    def write(self, text: str) -> int:
        self.pending += text
        while "\n" in self.pending:
            line, self.pending = self.pending.split("\n", 1)
            self.conn.send_bytes(line.encode())
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
        reader, writer = _CONTEXT.Pipe(duplex=False)
        self.process = _CONTEXT.Process(target=_run, args=(args, writer), daemon=True)
        self.process.start()
        writer.close()
        self._reader = reader

    def __iter__(self) -> Iterator[str]:
        while True:
            try:
                yield self._reader.recv_bytes().decode()
            except EOFError:
                return

    def kill(self) -> None:
        self.process.kill()

    def wait(self, timeout_s: float = 60) -> int:
        self.process.join(timeout_s)
        self._reader.close()
        return self.process.exitcode
