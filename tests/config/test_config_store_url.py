"""`store.url` is checked when the configuration is read (issue 21, Input): every malformed form
is one line naming the file, the line and the key, from `check-config` and from every command at
start (exit 2, which the unit does not restart on), never a crash (exit 1, a restart loop) or an
"unreachable" store that keeps every move in the journal for ever. What the check passes, redis-py
reads as the host wrote it (its parse_url, in the venv, is the other side of the contract)."""

from __future__ import annotations

import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st
from redis.connection import parse_url

from console.commands import main as cli
from console.config.store_url import MAX_SOCKET_PATH_BYTES, StoreUrlProblem, check_store_url
from console.store.writer import connect
from tests.commands.test_cli import isolated  # noqa: F401 (a fixture: no /etc or $HUES_CONFIG leaks in)
from tests.commands.test_fuzz_inputs import _write, refused

LONG_PATH = "/run/" + "r" * (MAX_SOCKET_PATH_BYTES - len("/run/") + 1)  # one byte past sun_path's room

MALFORMED = {
    # brackets
    "an unclosed [": "redis://[::1",
    "an unopened ]": "redis://::1]:6379/0",
    "text after ]": "redis://[::1]x:6379/0",
    "no IPv6 address in []": "redis://[localhost]:6379/0",
    # ports
    "port 99999": "redis://localhost:99999/0",
    "port 65536": "redis://localhost:65536",
    "port 0 (redis-py takes 6379)": "redis://localhost:0/0",
    "port -1": "redis://localhost:-1/0",
    "port not a number": "redis://localhost:abc/0",
    "port empty": "redis://localhost:/0",
    "port in other digits": "redis://localhost:\u0666\u0663\u0667\u0669/0",
    "two ports": "redis://localhost:6379:6380/0",
    # schemes and hosts
    "http": "http://localhost:6379",
    "upper case scheme": "REDIS://localhost",
    "one slash": "redis:/localhost",
    "no host": "redis://:6379/0",
    "no host at all": "redis://",
    "a host of symbols": "redis://local!host/0",
    "memory with a name": "memory://games",
    "two @": "redis://a@b@localhost/0",
    "a space": "redis://local host/0",
    "a fragment": "redis://localhost/0#x",
    "a bad percent": "redis://u:p%zz@localhost/0",
    "percent bytes not UTF-8": "redis://u:%ff@localhost/0",
    # databases
    "db not a number": "redis://localhost/x",
    "db as two parts (redis-py reads 01)": "redis://localhost/0/1",
    "db negative": "redis://localhost/-1",
    "db too large": "redis://localhost/99999999999",
    "db twice": "redis://localhost/1?db=2",
    "db empty option": "redis://localhost/?db=",
    "db option not a number": "unix:///run/r.sock?db=zero",
    "db option twice": "unix:///run/r.sock?db=1&db=2",
    # unix sockets
    "no socket path": "unix://",
    "a directory": "unix:///run/redis/",
    "a host on a unix URL": "unix://localhost/run/r.sock",
    "a port on a unix URL": "unix://:6379/run/r.sock",
    "a path longer than sun_path": "unix://" + LONG_PATH,
    "a 300 byte path": "unix:///" + "a" * 300 + ".sock",
    "a NUL in the path": "unix:///run/r%00.sock",
    # query options
    "socket_timeout": "redis://localhost/0?socket_timeout=3600",
    "ssl_cert_reqs": "rediss://localhost/0?ssl_cert_reqs=none",
    "an unknown option": "unix:///run/r.sock?bogus=1",
    "an option without =": "redis://localhost/0?db",
    "password twice": "redis://:a@localhost/0?password=b",
}

GOOD = {
    "unix://hues@/run/redis/redis-server.sock?db=0": {"path": "/run/redis/redis-server.sock", "db": 0,
                                                      "username": "hues"},
    "redis://localhost:6379/3": {"host": "localhost", "port": 6379, "db": 3},
    "redis://localhost": {"host": "localhost"},
    "redis://127.0.0.1:6380/": {"host": "127.0.0.1", "port": 6380},
    "rediss://box.local:6379/0": {"host": "box.local", "port": 6379, "db": 0},
    "redis://[::1]:6379/1": {"host": "::1", "port": 6379, "db": 1},
    "redis://hues:p%40ss%23@localhost/0": {"host": "localhost", "username": "hues", "password": "p@ss#", "db": 0},
    "redis://localhost?db=2&password=x": {"host": "localhost", "db": 2, "password": "x"},
    "unix://" + LONG_PATH[:-1]: {"path": LONG_PATH[:-1]},
}


@pytest.mark.parametrize("url", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_store_url_is_one_line_from_check_config_and_at_start(isolated, tmp_path, capsys, url):
    path = _write(tmp_path, f'store:\n  url: "{url}"\n', "c.yaml")
    assert refused(capsys, ["check-config", path]).startswith(f"{path}:2: store.url: ")
    script = _write(tmp_path, "a\n", "s.txt")
    for argv in (["sim", "--headless", "--config", path, "--script", script], ["history", "--config", path],
                 ["palette", "--config", path]):
        assert refused(capsys, argv).startswith(f"{path}:2: store.url: ")


@pytest.mark.parametrize("url", GOOD, ids=GOOD)
def test_a_good_store_url_passes_and_redis_py_reads_it_as_written(isolated, tmp_path, capsys, url):
    path = _write(tmp_path, f'store:\n  url: "{url}"\n', "c.yaml")
    assert cli.main(["check-config", path]) == 0
    assert capsys.readouterr().out == f"{path}: OK\n"
    read = parse_url(url)
    assert {key: read[key] for key in GOOD[url]} == GOOD[url]


def test_the_long_path_is_refused_for_its_length():
    with pytest.raises(StoreUrlProblem, match=f"at most {MAX_SOCKET_PATH_BYTES} bytes"):
        check_store_url("unix://" + LONG_PATH)


_PIECES = st.sampled_from(["redis://", "rediss://", "unix://", "memory://", "localhost", "[::1]", "[", "]",
                           ":", ":6379", ":0", ":99999", "/", "/0", "/x", "?", "db=", "1", "&", "=", "@",
                           "u:p@", "%", "%41", "%ff", "#", "password=", "socket_timeout=1", "run/r.sock",
                           " ", "-", "."])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=8).map("".join) | st.text(max_size=40))
def test_any_text_is_a_good_url_redis_py_takes_or_one_problem_line(url):
    """Never another exception; and whatever passes, redis-py and the store's own connect take
    without an error, so the check and the store cannot disagree."""
    try:
        check_store_url(url)
    except StoreUrlProblem as problem:
        assert str(problem) and str(problem).isprintable()
        return
    if url == "memory://":
        return
    kwargs = parse_url(url)
    assert 1 <= kwargs.get("port", 6379) <= 65535 and kwargs.get("db", 0) >= 0
    client = connect(url)
    assert isinstance(client, redis.Redis)
    client.close()
