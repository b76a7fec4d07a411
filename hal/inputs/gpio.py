"""The arcade joystick and buttons on the Pi's GPIO header, read through gpiozero.

gpiozero calls `when_pressed` / `when_released` from its own threads, while the app loop calls
`poll` for auto-repeat; one lock keeps the held-button state and the order of events in the
queue consistent between them (a repeat is never queued after the release that ended its hold).
Devices ask a pin factory, as everywhere in gpiozero, so tests pass `MockFactory()`.

Any failure to open a pin is an InputConfigError naming the pin and the button: gpiozero's own
errors, the OS's, and lgpio's `lgpio.error`, which is not a GPIOZeroError and would otherwise
escape as a traceback. On a Pi 5, gpiozero 2.0.1 always opens /dev/gpiochip4 (its LGPIOFactory
ignores the chip it is given), but Raspberry Pi kernels from 6.6.45 put the header on gpiochip0;
2.0.1.post3 opens gpiochip4 only where it exists (gpiozero/pins/lgpio.py, issue #1166). The
installer pins 2.0.1.post3 in the venv, and the error says so if an older one is found.
"""

from __future__ import annotations

import errno
import queue
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from importlib import metadata

from gpiozero import Button
from gpiozero.exc import GPIOZeroError

from hal.drivers.leds_dev import is_pi5_family
from hal.inputs.events import BUTTONS, PRESS, RELEASE, InputConfigError, InputEvent
from hal.inputs.repeat import AutoRepeat

DEVICE_MODEL = "/proc/device-tree/model"
# gpiozero releases whose LGPIOFactory opens gpiochip4 on every Pi 5 (fixed in 2.0.1.post3).
WRONG_CHIP_ON_PI5 = ("2.0", "2.0.1", "2.0.1.post1", "2.0.1.post2")


def gpio_errors() -> tuple[type[BaseException], ...]:
    """What opening a pin can raise: gpiozero's errors, the OS's, and lgpio's where it is installed."""
    errors: tuple[type[BaseException], ...] = (GPIOZeroError, OSError)
    try:
        import lgpio
    except ImportError:
        return errors
    return errors + (lgpio.error,)


def gpio_failure_hint(error: BaseException, model: str, gpiozero_version: str) -> str:
    """What to do about a pin that could not be opened, from the board and the library version."""
    if is_pi5_family(model) and gpiozero_version in WRONG_CHIP_ON_PI5:
        return (f"gpiozero {gpiozero_version} opens the wrong GPIO chip on a Pi 5 with a current "
                f"kernel: run sudo ./scripts/install-pi again (it installs gpiozero 2.0.1.post3)")
    text = str(error).lower()
    if getattr(error, "errno", None) in (errno.EACCES, errno.EPERM) or "permission" in text:
        return "the console's user must be in the gpio group (sudo ./scripts/install-pi sets it up)"
    if "gpiochip" in text:
        return "no GPIO chip could be opened: is this a Raspberry Pi with python3-lgpio installed?"
    return "check the pin numbers under input.pins (BCM numbering)"


def _model(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read().replace("\0", "").strip()
    except OSError:
        return ""


def _gpiozero_version() -> str:
    try:
        return metadata.version("gpiozero")
    except metadata.PackageNotFoundError:
        return "unknown"


def check_pins(pins: Mapping[str, int]) -> None:
    """Reject a wiring table that names no known button, a non-number pin or a pin used twice."""
    if not pins:
        raise InputConfigError("no GPIO pins are configured for the buttons")
    owner: dict[int, str] = {}
    for button, pin in pins.items():
        if button not in BUTTONS:
            raise InputConfigError(
                f"unknown button {button!r} in the GPIO pins (buttons are {', '.join(BUTTONS)})"
            )
        if isinstance(pin, bool) or not isinstance(pin, int) or pin < 0:
            raise InputConfigError(
                f"GPIO pin for button {button!r} must be a BCM number, not {pin!r}"
            )
        if pin in owner:
            raise InputConfigError(f"GPIO {pin} is given to both {owner[pin]!r} and {button!r}")
        owner[pin] = button


class GpioInput:
    """Buttons wired from a GPIO pin to ground (or to 3.3 V with `pull_up=False`)."""

    def __init__(
        self,
        pins: Mapping[str, int],
        events: queue.SimpleQueue,
        clock: Callable[[], float] = time.monotonic,
        pull_up: bool = True,
        bounce_s: float = 0.02,
        repeat_delay_s: float = 0.35,
        repeat_rate_hz: float = 12.0,
        pin_factory=None,
        model_path: str = DEVICE_MODEL,
    ):
        check_pins(pins)
        if not bounce_s >= 0:
            raise InputConfigError(f"button debounce time must be 0 s or more, not {bounce_s!r}")
        self._events = events
        self._clock = clock
        self._repeat = AutoRepeat(repeat_delay_s, repeat_rate_hz)
        self._lock = threading.Lock()
        self._closed = False
        self._model_path = model_path
        self._buttons: list[Button] = []
        try:
            for name, pin in pins.items():
                self._buttons.append(self._open(name, pin, pull_up, bounce_s or None, pin_factory))
        except BaseException:
            self.close()
            raise

    def _open(self, name: str, pin: int, pull_up: bool, bounce: float | None, factory) -> Button:
        try:
            button = Button(pin, pull_up=pull_up, bounce_time=bounce, pin_factory=factory)
        except gpio_errors() as error:
            hint = gpio_failure_hint(error, _model(self._model_path), _gpiozero_version())
            raise InputConfigError(f"cannot use GPIO {pin} for button {name!r}: {error} ({hint})") from error
        button.when_pressed = partial(self._changed, name, PRESS)
        button.when_released = partial(self._changed, name, RELEASE)
        return button

    def _changed(self, name: str, kind: str) -> None:
        with self._lock:
            if self._closed:
                return
            now = self._clock()
            if kind == PRESS:
                self._repeat.press(name, now)
            else:
                self._repeat.release(name, now)
            self._events.put(InputEvent(name, kind, now))

    def poll(self, now: float) -> None:
        """Queue the auto-repeats of held directions that fell due by `now`."""
        with self._lock:
            if self._closed:
                return
            for event in self._repeat.due(now):
                self._events.put(event)

    def next_poll(self, now: float) -> float:
        """The next auto-repeat's time: presses and releases come through the queue by themselves."""
        with self._lock:
            return self._repeat.next_due()

    def close(self) -> None:
        """Free the pins (idempotent); no events follow, not even repeats of a button still held."""
        with self._lock:
            self._closed = True
        # Outside the lock: closing a Button may wait for a callback that is waiting for the lock.
        for button in self._buttons:
            button.close()
        self._buttons.clear()

    def __enter__(self) -> GpioInput:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
