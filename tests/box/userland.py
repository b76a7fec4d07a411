"""The Pi's own processors without a Pi: a Debian root for arm64 or armhf (tests/box/root.py) run
through qemu-user-static (binfmt_misc), as a chroot over an overlay whose upper layer is the lane's
disk, so the cached root stays clean. systemd cannot run units under qemu-user (its executor's
system calls, BPF, seccomp and W^X are not emulated), so these lanes prove the userland: the
release built by the real `scripts/install-pi --no-hardware`, with the OS's gcc for the Pi's
processor, and the console's code and extension modules running on it
(tests/box/checks_userland.py); the sandbox, the watchdog and the power checks are the x86-64
boxes' (tests/box/machine.py).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import threading
from pathlib import Path

from tests.box import root as roots
from tests.box import stage
from tests.box.root import BoxError

BINFMT = Path("/proc/sys/fs/binfmt_misc")
QEMU_BINFMT = {"arm64": "qemu-aarch64", "armhf": "qemu-arm"}  # qemu-user-static's names in binfmt_misc
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
NICE = 10  # the emulation is the stage's heaviest work: the boxes' timed checks beside it go first
_registering = threading.Lock()


def register_qemu(arch: str) -> None:
    """qemu-user-static's interpreter for `arch` in binfmt_misc (binfmt-support does this at boot
    where systemd is PID 1; this machine's init does not)."""
    name = QEMU_BINFMT[arch]
    with _registering:
        if (BINFMT / name).exists() and (BINFMT / name).read_text().startswith("enabled"):
            return
        if shutil.which("update-binfmts") is None or not Path("/usr/share/binfmts", name).exists():
            raise BoxError("qemu-user-static and binfmt-support are not installed (./scripts/test installs "
                           "them: apt-get install qemu-user-static binfmt-support arch-test)")
        if not (BINFMT / "register").exists():
            _run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)])
        _run(["update-binfmts", "--enable", name])


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise BoxError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()[-1000:]}")


class Userland:
    """`root`: the cached root (read only); `environ`: its own (QEMU_CPU); `disk`: the lane's own
    directory; `binds`: (host path, path inside) pairs. Each command runs in a mount namespace of
    its own that mounts the overlay, /proc and /dev and ends with it: nothing is left mounted,
    even after a SIGKILL."""

    def __init__(self, root: Path, environ: dict[str, str], disk: Path, binds: list[tuple[Path, str]]):
        self.root, self.environ, self.disk, self.binds = root, environ, disk, binds
        self.upper = disk / "upper"
        for part in ("upper", "work", "merged"):
            (disk / part).mkdir(parents=True, exist_ok=True)

    def run(self, *argv: str, check: bool = True, timeout: float = 600, environ: dict[str, str] | None = None):
        merged = self.disk / "merged"
        overlay = f"lowerdir={self.root},upperdir={self.upper},workdir={self.disk / 'work'}"
        mounts = [f"mount -t overlay overlay -o {shlex.quote(overlay)} {shlex.quote(str(merged))}",
                  f"mount -t proc proc {shlex.quote(str(merged / 'proc'))}",
                  f"mount --rbind /dev {shlex.quote(str(merged / 'dev'))}"]
        for host, inside in self.binds:
            target = shlex.quote(str(merged / inside.lstrip("/")))
            mounts += [f"mkdir -p {target}", f"mount --bind {shlex.quote(str(host))} {target}"]
        script = " && ".join(mounts) + f' && exec chroot {shlex.quote(str(merged))} "$@"'
        command = ["nice", "-n", str(NICE), "unshare", "--mount", "--propagation", "private", "--fork",
                   "sh", "-c", script, "userland", *argv]
        # SYSTEMD_OFFLINE: systemctl changes files only and skips what needs a running systemd
        # ("Running in chroot, ignoring command 'restart'"), as in any chroot it can tell is one
        # (this machine hides its PID 1's root, by which systemctl would tell).
        env = {"PATH": PATH, "HOME": "/root", "LANG": "C.UTF-8", "SYSTEMD_OFFLINE": "1", **self.environ,
               **(environ or {})}
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
        if check and result.returncode != 0:
            raise BoxError(f"in the userland: {' '.join(argv)[:200]} failed ({result.returncode}): "
                           f"{(result.stderr or result.stdout)[-3000:]}")
        return result

    def file(self, path: str) -> Path:
        """A file as the userland sees it: the lane's disk if it wrote one, else the root's."""
        upper = self.upper / path.lstrip("/")
        return upper if os.path.lexists(upper) else self.root / path.lstrip("/")


class Lane(stage.Lane):
    """A lane of tests/box/stage.py on a userland of the Pi's processor, its checks in the same order
    (the first installs; a failed install ends the lane). What a check uses of it: `land`, `arch`,
    `install` and `figure`."""

    def __init__(self, *args):
        super().__init__(*args)
        self.arch = self.root.arch
        self.land: Userland | None = None

    def start(self, root: Path, disk: Path) -> None:
        register_qemu(self.arch)
        stage.copy_checkout(disk / "upper")
        cache = roots.pip_cache(root) / self.name
        cache.mkdir(parents=True, exist_ok=True)
        self.land = Userland(root, self.root.environ(), disk, [(cache, "/root/.cache/pip")])

    def install(self, model: str) -> str:
        result = self.land.run(f"{stage.SOURCE}/scripts/install-pi", "--no-hardware", model, check=False,
                               timeout=1200, environ=dict(pair.split("=", 1) for pair in stage.PIP_ENV))
        output = result.stdout + result.stderr
        if result.returncode != 0:
            raise BoxError(f"install-pi --no-hardware {model!r} failed in the {self.arch} userland "
                           f"({result.returncode}):\n{output[-3000:]}")
        return output


def checks(arch: str) -> list[tuple[str, object]]:
    from tests.box import checks_userland

    return [(f"{arch}_{name}", function) for name, function in checks_userland.CHECKS]
