"""The Redis ACL of the console's user `hues` (config/redis-hues.conf) allows exactly the commands
the store sends, and no key outside its prefix: every command the real redis-server knows
(COMMAND LIST, subcommands included) is put to ACL DRYRUN as `hues`. SCAN, KEYS, RANDOMKEY, DBSIZE,
SELECT and MOVE were allowed before (216 commands): they show key names beyond the prefix.

The store's own real-Redis tests (tests/store/test_store_redis.py, test_power_cut.py, ...) run as `hues`
under this ACL, so a command the store needs and the list lacks fails there as NOPERM."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
import redis
import redis.client

from tests.redis_server import CONFIG

# What console/store sends (redis-py 8's names: incr -> INCRBY, execute -> MULTI/EXEC, a pipeline's reset after
# WATCH -> UNWATCH, the writer's liveness check -> PING, persistence_problems -> CONFIG GET).
# redis-py also sends CLIENT SETINFO on connecting, which Redis 7.0 (Bookworm's) does not know.
STORE_COMMANDS = {
    "ping", "multi", "exec", "watch", "unwatch", "type", "exists", "del", "rename",
    "get", "set", "incrby", "hget", "hset", "hdel", "hgetall", "rpush", "lrange", "lindex",
    "llen", "ltrim", "zadd", "zrem", "zcard", "zrange", "zrevrange", "zscore", "config|get",
}
# What Redis lets every connection run, whatever its ACL (the commands flagged no-auth).
ANYONE = {"auth", "hello", "quit", "reset"}
KEY = "hues:game:1:record"
STORE = Path(__file__).resolve().parents[2] / "console" / "store"
DENIED = re.compile(r"no permissions to run the '[^']+' command")


def dry_run(admin: redis.Redis, name: str, arity: int) -> str:
    """ACL DRYRUN's answer for `name` run by hues with enough arguments, all of them a key of the
    console's own ("hues:..."), so only the command itself can be refused."""
    words = name.split("|")
    needed = (arity - 1 if arity > 0 else -arity - 1) - (len(words) - 1)
    try:
        return str(admin.execute_command("ACL", "DRYRUN", "hues", *words, *[KEY] * max(needed, 0)))
    except redis.ResponseError as error:
        return str(error)


def known_commands(admin: redis.Redis) -> dict[str, int]:
    """Every command and subcommand redis-server knows, with its arity (read off the raw replies:
    redis-py's own parser for COMMAND expects the top-level form only). A command with
    subcommands (CONFIG, CLIENT, ...) is run only as one of them, so its subcommands stand for it."""
    connection = admin.connection_pool.get_connection()
    try:
        connection.send_command("COMMAND", "LIST")
        names = connection.read_response()
        arities = {}
        for name in names:
            connection.send_command("COMMAND", "INFO", name)
            arities[name.lower()] = int(connection.read_response()[0][1])
        return {name: arity for name, arity in arities.items()
                if not any(other.startswith(name + "|") for other in arities)}
    finally:
        admin.connection_pool.release(connection)


def test_the_acl_lists_exactly_the_commands_the_store_uses(redis_server):
    admin = redis_server.client()
    commands = known_commands(admin)
    assert len(commands) > 200 and STORE_COMMANDS <= set(commands)
    answers = {name: dry_run(admin, name, arity) for name, arity in commands.items()}
    allowed = {name for name, answer in answers.items() if answer == "OK"}
    unclear = {name: answer for name, answer in answers.items() if answer != "OK" and not DENIED.search(answer)}
    assert unclear == {}  # every answer is a yes or a no about the command itself
    assert allowed == STORE_COMMANDS | ANYONE
    for leak in ("scan", "keys", "randomkey", "dbsize", "select", "move", "flushall", "config|set", "eval"):
        assert leak not in allowed


@pytest.mark.parametrize("command", [("get", "other"), ("set", "other", "1"), ("rename", KEY, "other")])
def test_keys_outside_the_prefix_are_refused(redis_server, command):
    try:
        answer = redis_server.client().execute_command("ACL", "DRYRUN", "hues", *command)
    except redis.ResponseError as error:
        answer = str(error)
    assert "no permissions to access the 'other' key" in answer


def test_the_config_file_holds_the_listed_commands():
    line = next(line for line in CONFIG.read_text().splitlines() if line.startswith("user hues "))
    assert {word[1:] for word in line.split() if word.startswith("+")} == STORE_COMMANDS
    assert "-@all" in line.split() and "~hues:*" in line.split()


def commands_the_store_calls() -> set[str]:
    """The Redis command of each redis-py method console/store calls on a client or a pipeline,
    read from redis-py's own source (`execute_command("INCRBY", ...)`, `pieces = ["ZREVRANGE", ...`),
    so that a call added to the store is held against the list whether or not a test reaches it."""
    commands = set()
    for path in STORE.glob("*.py"):
        text = path.read_text()
        receivers = {"self.redis", "self._redis", *re.findall(r"\.pipeline\([^)]*\) as (\w+)", text),
                     *re.findall(r"(\w+) = self\.redis\.pipeline\(", text)}
        pattern = r"\b(?:%s)\.([a-z_]+)\(" % "|".join(map(re.escape, receivers))
        for method in set(re.findall(pattern, text)):
            function = getattr(redis.client.Pipeline, method)
            if method == "execute":  # a transaction (MULTI ... EXEC) or a plain batch
                commands |= {"multi", "exec"}
                continue
            if method in ("watch", "unwatch"):
                commands.add(method)
                continue
            if not function.__module__.startswith("redis.commands"):  # close(), multi(): no command
                continue
            source = inspect.getsource(function)
            sent = re.findall(r'(?:execute_command\(\s*|\[\s*|_\w+\(\s*)"([A-Z][A-Z ]*)"', source)
            assert sent, f"{path.name}: cannot tell which command redis-py's {method}() sends"
            named = method.upper().replace("_", " ")
            commands.add((named if named in sent else sent[0]).lower().replace(" ", "|"))
    return commands


def test_every_command_the_store_code_calls_is_in_the_list():
    calls = commands_the_store_calls()
    assert {"rpush", "incrby", "zrevrange", "config|get", "watch", "multi", "exec"} <= calls
    # UNWATCH is sent by a pipeline's reset after WATCH, PING by the writer's liveness check.
    assert calls <= STORE_COMMANDS and STORE_COMMANDS - calls <= {"unwatch"}
