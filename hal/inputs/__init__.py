"""Input sources: GPIO buttons, the terminal keyboard and input scripts, all speaking InputEvent.

Each source puts events on a `queue.SimpleQueue` and has `poll(now)`, which the app loop calls
every frame so that auto-repeat and scripted input run on the app's (injectable) clock. The
sources live in their own modules (`gpio`, `keyboard`, `script`) so that importing the event
vocabulary pulls in neither gpiozero nor termios.
"""

from hal.inputs.events import (
    BUTTONS,
    DIRECTIONS,
    PRESS,
    QUIT,
    RELEASE,
    REPEAT,
    InputConfigError,
    InputEvent,
)
from hal.inputs.repeat import AutoRepeat

__all__ = [
    "BUTTONS",
    "DIRECTIONS",
    "PRESS",
    "QUIT",
    "RELEASE",
    "REPEAT",
    "AutoRepeat",
    "InputConfigError",
    "InputEvent",
]
