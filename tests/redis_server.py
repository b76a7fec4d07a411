"""The Redis servers the store's tests run against: a real one, and a fake one whose link can be cut.

The real redis-server (integration tests: real AOF, real crashes, restarts) runs with the Pi's own
`config/redis-hues.conf`, unchanged but for where its socket and data are: the console talks to it as
the Pi's console does, over the unix socket as the ACL user `hues`. So that file is checked to parse,
to give appendfsync always, and to let the console do all it needs. The tests' own client (to look
and to tamper) is an extra `admin` user given on the command line. RDB snapshots are off, so
whatever survives a restart survived through the append-only file.
"""

from __future__ import annotations

import contextlib
import json
import resource
import shutil
import signal
import subprocess
import time
from pathlib import Path

import fakeredis
import redis

from console.store.games import GameStore
from console.store.writer import STORED_BYTES
from tests.fakes import FakeClock

CONFIG = Path(__file__).resolve().parent.parent / "config" / "redis-hues.conf"
INSTALL_HINT = "apt-get install redis-server"
WALL_START = 1_714_590_000.0


def find_redis_server() -> str | None:
    """The redis-server binary, also where Debian puts it outside a normal user's PATH."""
    return shutil.which("redis-server") or next(
        (path for path in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if Path(path).exists()), None)


def _writes_past_a_limit_fail() -> None:
    """In the server's process: a write past its file-size limit fails (EFBIG) as on a full card,
    instead of SIGXFSZ killing it (`fill_the_disk`)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


class RedisServer:
    """One redis-server process that can be started, stopped, killed and started again on its data."""

    def __init__(self, binary: str, directory: Path, extra: tuple[str, ...] = ()):
        self.binary = binary
        self.directory = directory
        self.socket = directory / "redis.sock"
        self.extra = extra  # more settings, e.g. ("--appendfsync", "everysec")
        self.process: subprocess.Popen | None = None
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        """The console's URL: the unix socket, as the ACL user the Pi's console logs in as."""
        return f"unix://hues@{self.socket}?db=0"

    def client(self, timeout_s: float = 2) -> redis.Redis:
        """A client with every right, to look at and tamper with what the console stored."""
        return redis.Redis(unix_socket_path=str(self.socket), username="admin", password="x",
                           decode_responses=True, socket_timeout=timeout_s, socket_connect_timeout=0.2)

    def start(self, timeout_s: float = 10.0) -> None:
        """Start (or restart) the server on the same data; return once it answers PING."""
        log = self.directory / "redis.log"
        self.process = subprocess.Popen(
            [self.binary, str(CONFIG), "--unixsocket", str(self.socket), "--dir", str(self.directory),
             "--daemonize", "no", "--logfile", str(log), "--user", "admin", "on", "nopass", "~*", "&*",
             "+@all", *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_writes_past_a_limit_fail)
        deadline = time.monotonic() + timeout_s
        client = self.client(0.5)
        try:
            while True:
                if self.process.poll() is not None:
                    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                    raise RuntimeError(f"redis-server exited with {self.process.returncode}:\n{tail}")
                try:
                    client.ping()
                    return
                except redis.RedisError:
                    if time.monotonic() > deadline:
                        self.kill()
                        raise RuntimeError(f"redis-server did not answer on {self.socket}") from None
                    time.sleep(0.01)  # waiting for a process to come up, not timing anything
        finally:
            client.close()

    def fill_the_disk(self) -> None:
        """Redis's card is full: its next write to the append-only file fails. (A file-size limit
        on the process, RLIMIT_FSIZE, at the incr file's size: a write there fails as ENOSPC
        fails it. With appendfsync always Redis then exits before it replies to the write:
        aof.c flushAppendOnlyFile, "Can't recover from AOF write error".)"""
        incr = max((self.directory / "appendonlydir").glob("*.incr.aof"), key=lambda path: path.stat().st_mtime)
        size = incr.stat().st_size
        resource.prlimit(self.process.pid, resource.RLIMIT_FSIZE, (size, size))

    def stop(self) -> None:
        """A clean shutdown (SIGTERM)."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """A crash or power cut (SIGKILL): only what was fsynced survives."""
        self._end(signal.SIGKILL)

    def _end(self, how: signal.Signals) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(how)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class FakeRedisRig:
    """A fakeredis server that can go down and come back, clocks, and stores that talk to it."""

    def __init__(self):
        self.server = fakeredis.FakeServer()
        self.wall = FakeClock(WALL_START)
        self.mono = FakeClock(100.0)
        self.redis = fakeredis.FakeRedis(server=self.server, decode_responses=True, encoding_errors=STORED_BYTES)

    def store(self, client: redis.Redis | None = None, owner: str = "the-console-under-test",
              **options) -> GameStore:
        """A store on the fake server; each call is like a new process of the same console
        (another `owner` is another console on the same store)."""
        client = client or fakeredis.FakeRedis(server=self.server, decode_responses=True,
                                               encoding_errors=STORED_BYTES)  # as `connect` makes it
        return GameStore("memory://", clock=self.wall, monotonic=self.mono, sleep=self.mono.sleep, client=client,
                         owner=owner, **options)

    def playing(self) -> list[str]:
        """The ids of the unfinished games, newest first."""
        return self.redis.zrevrange("hues:playing", 0, -1)

    def down(self) -> None:
        self.server.connected = False

    def up(self) -> None:
        self.server.connected = True

    def record(self, game_id: str) -> list[dict]:
        """The actions Redis holds of a game (each line's checksum chain taken off)."""
        return [json.loads(line if line.startswith("{") else line.partition(" ")[2])
                for line in self.redis.lrange(f"hues:game:{game_id}:record", 0, -1)]


class CountingRedis(fakeredis.FakeRedis):
    """Counts PINGs: with nothing to write, each retry of the store is one PING."""

    pings = 0

    def ping(self, **kwargs):
        self.pings += 1
        return super().ping(**kwargs)


@contextlib.contextmanager
def replies_lost():
    """Transactions run on the server but, while state["lose"] > 0, their reply is lost (a dropped link)."""
    original = redis.client.Pipeline.execute
    state = {"lose": 0}

    def execute(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        if state["lose"]:
            state["lose"] -= 1
            raise redis.ConnectionError("connection lost before the reply")
        return result

    redis.client.Pipeline.execute = execute
    try:
        yield state
    finally:
        redis.client.Pipeline.execute = original
