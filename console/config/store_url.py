"""Whether `store.url` names a game store the console can reach, decided when the configuration
is read, so that a mistyped URL is one line from `check-config` and exit 2 at start (the unit does
not restart on 2) instead of a crash loop, or an "unreachable" store that keeps every move in the
journal for ever.

redis-py's `parse_url` (redis/connection.py) is forgiving where the console must not be: a port of
0 or a database path of `/x` is dropped for its default, `/0/1` is read as database 1, a repeated
or empty query option is dropped, `%ff` becomes U+FFFD, a host after `unix://` is ignored, and
Python's `urlsplit` takes `[::1]x:5` as the host ::1. Others fail only when the first command
connects: an unclosed `[` (ValueError from urlsplit), a port of 99999, an option the connection
does not know (a TypeError), a socket path too long for `sockaddr_un`. So the URL is read here
with the grammar the console takes, strictly; what passes is what redis-py reads the same way.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import parse_qsl, unquote, unquote_to_bytes, urlsplit

MEMORY_URL = "memory://"
FORMS = "redis://HOST:PORT/DB, rediss://HOST:PORT/DB, unix:///PATH.sock?db=DB or memory://"
QUERY_OPTIONS = ("db", "username", "password")
"""The console's own timeouts must hold (redis-py lets a URL's options override the client's
arguments: `from_url`, "URL options ... take precedence"), so a URL takes only these. This is the
one check: the store (console/store/writer.py `connect`) takes the URL as given."""
MAX_DB = (1 << 31) - 1  # SELECT takes a C int
SUN_PATH_BYTES = 108
"""sizeof(sockaddr_un.sun_path) on Linux (unix(7)); the path and its terminating NUL must fit, and
redis-server copies at most 107 bytes of `unixsocket` into it (anet.c, strncpy of sun_path - 1)."""
MAX_SOCKET_PATH_BYTES = SUN_PATH_BYTES - 1

# RFC 3986's characters: unreserved, reserved and the percent sign. Anything else (a space, a
# quote, a backslash, a character past ASCII) is a mistake or must be percent-encoded.
_URL_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST_NAME = re.compile(r"(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_\-]{0,61}[A-Za-z0-9_])?\.?)+")
_NETLOC = re.compile(r"(?:(?P<userinfo>[^@]*)@)?(?P<host>\[[^\]]*\]|[^:\[\]@]*)(?::(?P<port>[^@]*))?")


class StoreUrlProblem(ValueError):
    """What is wrong with a store URL, in words for the host who wrote it."""


def check_store_url(url: str) -> None:
    """StoreUrlProblem unless `url` is one of the FORMS, every part of it well formed."""
    if url == MEMORY_URL:
        return
    if url.startswith(MEMORY_URL):
        raise StoreUrlProblem("memory:// takes nothing after it")
    scheme = url.partition("://")[0]
    if scheme not in ("redis", "rediss", "unix") or "://" not in url:
        raise StoreUrlProblem(f"use {FORMS}")
    if not _URL_CHARACTERS.fullmatch(url):
        bad = next(ch for ch in url if not _URL_CHARACTERS.fullmatch(ch))
        raise StoreUrlProblem(f"{bad!r} cannot be in a URL (percent-encode it, or leave it out)")
    if _BAD_PERCENT.search(url):
        raise StoreUrlProblem("a % must start a percent-encoded byte such as %40")
    try:
        parts = urlsplit(url)
    except ValueError:  # "Invalid IPv6 URL": a [ without its ], or a ] without its [
        raise StoreUrlProblem("the host's [ and ] do not pair up (an IPv6 address is written [::1])") from None
    if "#" in url:
        raise StoreUrlProblem("a # has no place in a store URL (in a password, write it as %23)")
    netloc = _NETLOC.fullmatch(parts.netloc)
    if netloc is None:
        raise StoreUrlProblem("the part after :// is not [USER[:PASSWORD]@]HOST[:PORT] (an @ in a password is %40)")
    options = _query_options(parts.query)
    _check_userinfo(netloc["userinfo"], options)
    if scheme == "unix":
        _check_unix(netloc["host"], netloc["port"], parts.path)
    else:
        _check_host(netloc["host"])
        _check_port(netloc["port"])
        _check_db_path(parts.path, options)
    if "db" in options:
        _check_db(options["db"])


def _query_options(query: str) -> dict[str, str]:
    """The options after `?`, each given once and with a value (redis-py keeps the first of a
    repeated option and drops an empty one without a word)."""
    options: dict[str, str] = {}
    try:
        pairs = parse_qsl(query, keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        raise StoreUrlProblem("an option holds percent-encoded bytes that are not UTF-8") from None
    for name, value in pairs:
        if name not in QUERY_OPTIONS:
            raise StoreUrlProblem(f"{name[:20]!r} is not an option the console takes "
                                  f"(only {', '.join(QUERY_OPTIONS)}: it sets its own timeouts)")
        if name in options:
            raise StoreUrlProblem(f"the option {name} is given twice")
        if not value:
            raise StoreUrlProblem(f"the option {name} has no value")
        options[name] = value
    return options


def _check_userinfo(userinfo: str | None, options: dict[str, str]) -> None:
    if userinfo is None:
        return
    username, _, password = userinfo.partition(":")
    for name, text in (("username", username), ("password", password)):
        if text and name in options:
            raise StoreUrlProblem(f"the {name} is given twice (before the @ and as ?{name}=)")
        _decoded(text, f"the {name}")


def _decoded(text: str, what: str) -> str:
    """`text` percent-decoded; a StoreUrlProblem when the bytes are not UTF-8 (unquote would
    put U+FFFD in their place, and the server would get other bytes than the host wrote)."""
    try:
        return unquote_to_bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        raise StoreUrlProblem(f"{what} holds percent-encoded bytes that are not UTF-8") from None


def _check_host(host: str) -> None:
    if not host:
        raise StoreUrlProblem("no host: name the Redis server, as in redis://localhost:6379/0")
    if host.startswith("["):
        address = unquote(host[1:-1])
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            raise StoreUrlProblem(f"{host[:50]} is not an IPv6 address") from None
    elif not _HOST_NAME.fullmatch(host):
        raise StoreUrlProblem(f"{host[:50]!r} is not a host name or address (letters, digits, dots and hyphens)")


def _check_port(port: str | None) -> None:
    if port is None:
        return
    if not port.isdigit() or not port.isascii():  # isdigit alone takes other scripts' digits
        raise StoreUrlProblem(f"the port {port[:20]!r} is not a number")
    if not 1 <= int(port) <= 65535:
        raise StoreUrlProblem(f"the port {int(port)} is out of range, expected 1 to 65535")


def _check_db_path(path: str, options: dict[str, str]) -> None:
    """`/DB` or nothing: redis-py reads the path as the database (`/x` dropped, `/0/1` as 1)."""
    number = path[1:]
    if not number:
        return
    if "db" in options:
        raise StoreUrlProblem("the database is given twice (the path and ?db=)")
    _check_db(number)


def _check_db(text: str) -> None:
    if not (text.isascii() and text.isdigit()):
        raise StoreUrlProblem(f"the database {text[:20]!r} is not a number (0, 1, 2...)")
    if int(text) > MAX_DB:
        raise StoreUrlProblem(f"the database number {text[:20]} is too large")


def _check_unix(host: str, port: str | None, path: str) -> None:
    if host or port is not None:
        raise StoreUrlProblem("a unix socket URL names no host or port: write unix:///PATH.sock (three slashes)")
    if not path or path.endswith("/"):
        raise StoreUrlProblem("no socket path: write unix:///PATH.sock, as in unix:///run/redis/redis-server.sock")
    decoded = _decoded(path, "the socket path")
    if "\0" in decoded:
        raise StoreUrlProblem("the socket path holds a NUL (%00)")
    length = len(decoded.encode("utf-8"))
    if length > MAX_SOCKET_PATH_BYTES:
        raise StoreUrlProblem(f"the socket path is {length} bytes long; a unix socket's path is at most "
                              f"{MAX_SOCKET_PATH_BYTES} bytes (sockaddr_un.sun_path)")
