"""`hues-console sticker --out FILE`: a QR code with the box's address, to stick on the box.

A 32x16 panel cannot show a scannable QR code, so the address goes on paper. The picture is made
by segno (pure Python, no image library needed for SVG, PNG, PDF or EPS); the kind follows the
file's extension. The address is the configured web server's: for an address that listens on
every network (0.0.0.0) the box's name on the local network (`<hostname>.local`, which Raspberry
Pi OS announces with Avahi) stays right when the router hands out another IP address.
"""

from __future__ import annotations

import io
import ipaddress
import socket
from pathlib import Path

import segno

from console.commands.common import UsageError, write_output
from console.config.loader import ETC_PATH, load_config

KINDS = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".eps": "eps"}


def box_url(address: str, port: int, hostname: str | None = None, where: str = "the configuration") -> str:
    """The address a phone at the table opens, for a server listening on `address`; `where`
    names the file to change when phones cannot reach it."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        ip = None
    if (ip is not None and ip.is_loopback) or address == "localhost":
        raise UsageError(f"web.address is {address} (this computer only): phones cannot reach it; "
                         f"set web.enabled: true and web.address: 0.0.0.0 in {where} "
                         "(the Pi installer does), or pass --url")
    if ip is not None and ip.is_unspecified:
        host = f"{hostname or socket.gethostname().split('.')[0]}.local"
    else:
        host = f"[{address}]" if ip is not None and ip.version == 6 else address
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


def _file_to_edit(config) -> str:
    """The host's configuration file, or where one goes when only the packaged default was read."""
    return config.source[-1] if len(config.source) > 1 else ETC_PATH


def sticker_main(config_path: str | None, out: str, url: str | None) -> int:
    kind = KINDS.get(Path(out).suffix.lower())
    if kind is None:
        raise UsageError(f"{out}: the sticker is written as {', '.join(KINDS)}: name the file so")
    config = load_config(config_path)
    if url is None:
        url = box_url(config.web.address, config.web.port, where=_file_to_edit(config))
    elif not url.startswith(("http://", "https://")) or len(url) > 200:
        raise UsageError(f"--url {url[:60]!r}: expected an http:// address of at most 200 characters")
    qr = segno.make(url, error="m")
    buffer = io.BytesIO()
    qr.save(buffer, kind=kind, scale=10, border=4, **({"title": "Hues and Cues: " + url} if kind == "svg" else {}))
    write_output(out, buffer.getvalue())
    print(f"{out}: a QR code for {url}" + ("" if config.web.enabled else " (web.enabled is false: turn it on)"))
    return 0
