import errno
import inspect
import io
import os
import re

import pytest
import rpi_ws281x
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from hal.drivers import DRIVER_NAMES, DRIVERS, DriverError, auto_driver, make_driver
from hal.drivers import ws281x as ws281x_module
from hal.drivers.leds_dev import KERNEL_GAMMA, DeviceNotReadyError, LedsDevDriver
from hal.drivers.sim_headless import HeadlessDriver
from hal.drivers.spec import Setting
from hal.drivers.sim_png import PngDriver
from hal.drivers.sim_terminal import HIDE_CURSOR, SHOW_CURSOR, TerminalDriver
from hal.drivers.ws281x import STRIP_TYPES, PiProbe, PixelStripStandIn, Ws281xDriver, changed_leds, led_colors
from hal.frame import Frame
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage, PowerBudget
from hal.picture import encode_png

LAYOUT = Layout(LayoutOptions())
LEDS = LAYOUT.led_count


def leds_with(*changes: tuple[int, tuple[int, int, int]]) -> bytes:
    leds = bytearray(LEDS * 3)
    for n, rgb in changes:
        leds[3 * n : 3 * n + 3] = bytes(rgb)
    return bytes(leds)


# --- make_driver -------------------------------------------------------------------------------


def test_make_driver_knows_the_seven_drivers():
    assert set(DRIVER_NAMES) == {"ws281x", "leds-dev", "ddp", "e131", "sim-terminal", "sim-headless", "sim-png"}
    with pytest.raises(DriverError, match="no LED driver called 'neopixel'.*sim-terminal"):
        make_driver("neopixel", {}, LAYOUT)


def test_make_driver_builds_simulators_from_settings(tmp_path):
    headless = make_driver("sim-headless", {"history": 3}, LAYOUT)
    assert isinstance(headless, HeadlessDriver) and headless.history.maxlen == 3
    png = make_driver("sim-png", {"path": str(tmp_path / "p.png"), "scale": 2}, LAYOUT)
    assert isinstance(png, PngDriver) and png.scale == 2
    assert isinstance(make_driver("sim-terminal", None, LAYOUT), TerminalDriver)


def test_make_driver_builds_ws281x_with_its_settings(monkeypatch):
    monkeypatch.setattr(ws281x_module, "real_pixel_strip", PixelStripStandIn)
    driver = make_driver("ws281x", {"pin": 13, "strip_type": "RGB", "invert": True}, LAYOUT)
    assert driver.strip.settings == dict(num=512, pin=13, freq_hz=800000, dma=10, invert=True,
                                         channel=1, strip_type=STRIP_TYPES["RGB"])


@pytest.mark.parametrize(
    "name, settings, words",
    [
        ("ws281x", {"pn": 18}, "unknown setting 'pn' for the ws281x driver"),
        ("ws281x", {"pin": "18"}, "pin should be a whole number"),
        ("ws281x", {"invert": 1}, "invert should be true or false"),
        ("ws281x", {"channel": True}, "channel should be a whole number"),
        ("sim-png", {"scale": 0}, "scale must be 1 or more"),
        ("sim-png", {"path": "/no/such/folder/p.png"}, "no folder /no/such/folder"),
        ("sim-headless", {"history": -1}, "history must be 0 or more"),
        ("sim-terminal", {"colour": True}, "unknown setting 'colour'"),
    ],
)
def test_make_driver_refuses_bad_settings(name, settings, words):
    with pytest.raises(DriverError, match=words):
        make_driver(name, settings, LAYOUT)


@pytest.mark.parametrize("model, name", [
    ("Raspberry Pi 5 Model B Rev 1.0\0", "leds-dev"),
    ("Raspberry Pi Compute Module 5 Rev 1.0\0", "leds-dev"),
    ("Raspberry Pi 500 Rev 1.0\0", "leds-dev"),
    ("Raspberry Pi 4 Model B Rev 1.4\0", "ws281x"),
    ("Raspberry Pi Zero 2 W Rev 1.0\0", "ws281x"),
    ("Radxa ROCK 5B\0", "sim-terminal"),
    (None, "sim-terminal"),  # no /proc/device-tree/model: not a single-board computer
])
def test_auto_picks_the_pis_own_led_driver_else_the_terminal(model, name):
    assert auto_driver(model) == name


def test_every_registered_driver_builds_from_its_defaults_alone(tmp_path, monkeypatch):
    """`make_driver(name, None)` works for each driver the registry lists (the LED chains on their
    stand-ins), so an entry's defaults are ones its driver takes."""
    monkeypatch.setattr(ws281x_module, "real_pixel_strip", PixelStripStandIn)
    monkeypatch.chdir(tmp_path)  # sim-png writes its default file here
    (tmp_path / "leds0").write_bytes(b"")
    for spec in DRIVERS:
        settings = {"device": str(tmp_path / "leds0")} if spec.name == "leds-dev" else None
        if spec.network:  # its receiver has no default: the configuration must name one
            with pytest.raises(DriverError, match=f"{spec.name} driver host: give the receiver's address"):
                make_driver(spec.name, settings, LAYOUT)
            settings = {"host": "127.0.0.1", "http_port": 0}
        driver = make_driver(spec.name, settings, LAYOUT)
        assert driver.light_response is spec.light_response
        driver.close()


def test_a_configured_number_without_its_range_is_refused_where_the_registry_is_written():
    with pytest.raises(ValueError, match="port: a number in the configuration needs its range"):
        Setting("port", int, 4048, low=1)
    assert Setting("channel", int, None, configured=False).high is None  # not in the file: no range


def test_leds_dev_takes_the_overlays_pin_among_its_settings(tmp_path):
    """The configuration's leds_dev.pin goes to the installer's overlay line: the driver is given
    it with the rest and leaves it be."""
    (tmp_path / "leds0").write_bytes(b"")
    driver = make_driver("leds-dev", {"device": str(tmp_path / "leds0"), "pin": 21}, LAYOUT)
    assert isinstance(driver, LedsDevDriver) and driver.device == str(tmp_path / "leds0")


# --- ws281x ------------------------------------------------------------------------------------


def test_stand_in_matches_the_real_pixel_strip():
    methods = [name for name, _ in inspect.getmembers(PixelStripStandIn, inspect.isfunction)
               if not name.startswith("_")] + ["__init__"]
    assert {"begin", "show", "setPixelColor", "numPixels", "getPixelColor", "setBrightness"} <= set(methods)
    for name in methods:
        real = getattr(rpi_ws281x.PixelStrip, name)
        assert inspect.signature(getattr(PixelStripStandIn, name)) == inspect.signature(real), name


def test_strip_type_values_are_rpi_ws281x_constants():
    for name, value in STRIP_TYPES.items():
        assert getattr(rpi_ws281x, f"WS2811_STRIP_{name}") == value


def test_ws281x_sets_only_the_leds_that_changed():
    driver = Ws281xDriver(LEDS, strip_factory=PixelStripStandIn)
    strip = driver.strip
    assert strip.began and strip.shows == 1 and strip.set_calls == 0
    driver.show(leds_with((0, (1, 2, 3)), (511, (255, 128, 0))), Frame(32, 16))
    assert strip.pixels[0] == 0x010203 and strip.pixels[511] == 0xFF8000
    assert (strip.set_calls, strip.shows) == (2, 2)
    driver.show(leds_with((0, (1, 2, 3)), (100, (0, 0, 9))), Frame(32, 16))
    assert strip.pixels[100] == 9 and strip.pixels[511] == 0
    assert (strip.set_calls, strip.shows) == (4, 3)
    driver.show(leds_with((0, (1, 2, 3)), (100, (0, 0, 9))), Frame(32, 16))
    assert (strip.set_calls, strip.shows) == (4, 3)  # nothing changed, nothing sent


def test_ws281x_a_pixel_the_library_refuses_is_a_driver_error_and_the_rest_are_set_again():
    """rpi_ws281x's ws2811_led_set raises for a position or colour its C side refuses (SWIG's
    OverflowError, TypeError): the console hears one DriverError, and the next frame sets every
    change again (the one refused was not shown)."""
    class Refusing(PixelStripStandIn):
        refuse = True

        def setPixelColor(self, n, color):
            if self.refuse and n == 7:
                raise OverflowError("in method 'ws2811_led_set', argument 3 of type 'ws2811_led_t'")
            super().setPixelColor(n, color)

    driver = Ws281xDriver(LEDS, strip_factory=Refusing)
    leds = leds_with((3, (1, 1, 1)), (7, (2, 2, 2)))
    with pytest.raises(DriverError, match="rpi-ws281x refused a pixel: in method 'ws2811_led_set'"):
        driver.show(leds, Frame(32, 16))
    driver.strip.refuse = False
    driver.show(leds, Frame(32, 16))
    assert driver.strip.pixels[3] == 0x010101 and driver.strip.pixels[7] == 0x020202


@settings(max_examples=80, deadline=None)
@given(st.lists(st.binary(min_size=LEDS * 3, max_size=LEDS * 3) | st.lists(
    st.tuples(st.integers(0, LEDS - 1), st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))),
    max_size=6).map(lambda lit: leds_with(*lit)), min_size=1, max_size=4))
def test_ws281x_sets_exactly_the_leds_whose_bytes_changed(frames):
    driver = Ws281xDriver(LEDS, strip_factory=PixelStripStandIn)
    strip, before = driver.strip, bytes(LEDS * 3)
    for leds in frames:
        assert list(changed_leds(before, leds)) == [n for n in range(LEDS) if before[3 * n:3 * n + 3] != leds[3 * n:3 * n + 3]]
        calls = strip.set_calls
        driver.show(leds, Frame(32, 16))
        assert strip.set_calls - calls == len(list(changed_leds(before, leds)))
        assert strip.pixels == list(led_colors(leds))
        before = leds


def test_ws281x_going_round_a_few_pictures_sets_each_change_again():
    driver = Ws281xDriver(LEDS, strip_factory=PixelStripStandIn)
    strip = driver.strip
    pictures = [leds_with((5, (9, 9, 9))), leds_with((5, (9, 9, 9)), (6, (1, 0, 0))), leds_with((7, (0, 3, 0)))]
    for _ in range(50):  # more rounds than changes kept
        for leds in pictures:
            calls = strip.set_calls
            before = list(strip.pixels)
            driver.show(leds, Frame(32, 16))
            assert strip.pixels == list(led_colors(leds))
            assert strip.set_calls - calls == sum(a != b for a, b in zip(before, strip.pixels))
    assert len(driver._changes) <= ws281x_module.CHANGES_KEPT


def test_ws281x_clear_and_close_turn_everything_off():
    driver = Ws281xDriver(LEDS, strip_factory=PixelStripStandIn)
    driver.show(bytes(range(256)) * 6, Frame(32, 16))
    driver.clear()
    assert driver.strip.pixels == [0] * LEDS
    driver.show(leds_with((5, (9, 9, 9))), Frame(32, 16))
    driver.close()
    driver.close()
    assert driver.strip.pixels == [0] * LEDS


def test_ws281x_refuses_an_unknown_colour_order():
    with pytest.raises(DriverError, match="'GRBX' is not a colour order"):
        Ws281xDriver(LEDS, strip_type="GRBX", strip_factory=PixelStripStandIn)


class FailingStrip(PixelStripStandIn):
    def begin(self):
        raise RuntimeError("ws2811_init failed with code -5 (mmap() failed)")


@pytest.fixture
def pi(tmp_path):
    """Builds a probe for a machine described by its model, loaded modules and user id."""

    def probe(model=None, modules="", euid=0, revision=None, spidev_bufsiz="65536"):
        model_path = tmp_path / "model"
        if model is not None:
            model_path.write_bytes(model.encode() + b"\0")
        revision_path = tmp_path / "linux,revision"
        if revision is not None:
            revision_path.write_bytes(revision.to_bytes(4, "big"))  # as the device tree holds it
        modules_path = tmp_path / "modules"
        modules_path.write_text(modules)
        bufsiz_path = tmp_path / "bufsiz"
        if spidev_bufsiz is not None:
            bufsiz_path.write_text(spidev_bufsiz + "\n")
        nodes = (tmp_path / "spidev0.0", tmp_path / "gpiomem")
        for node in nodes:
            node.touch()
        return PiProbe(model_path=str(model_path), revision_path=str(revision_path),
                       modules_path=str(modules_path), spidev_bufsiz_path=str(bufsiz_path),
                       spi_nodes=tuple(map(str, nodes)), euid=lambda: euid)

    return probe


PI4 = "Raspberry Pi 4 Model B Rev 1.4"
SOUND = "snd_bcm2835 24576 1 - Live 0xffffffc000c3e000\n"


@pytest.mark.parametrize(
    "machine, pin, words",
    [
        (dict(model=None), 18, "not a Raspberry Pi.*sim-terminal"),
        (dict(model="Generic x86"), 18, "not a Raspberry Pi"),
        (dict(model="Raspberry Pi 5 Model B Rev 1.0"), 18, "Raspberry Pi 5.*leds-dev"),
        (dict(model=PI4), 17, "cannot drive LEDs on GPIO 17"),
        (dict(model=PI4, euid=1000), 18, "GPIO 18 needs root"),
        (dict(model=PI4, modules=SOUND), 19, r"snd_bcm2835.*GPIO 19.*dtparam=audio=off"),
        (dict(model=PI4, modules=SOUND), 21, r"could not start the LEDs on GPIO 21: .*mmap"),
        (dict(model=PI4, euid=1000, modules=SOUND), 10, r"GPIO 10: .*mmap"),
    ],
)
def test_a_failed_start_names_the_likely_cause(pi, machine, pin, words):
    with pytest.raises(DriverError, match=words):
        Ws281xDriver(LEDS, pin=pin, strip_factory=FailingStrip, probe=pi(**machine))


class UnknownBoardStrip(PixelStripStandIn):
    def begin(self):
        raise RuntimeError("ws2811_init failed with code -3 (Hardware revision is not supported)")


@pytest.mark.parametrize("model, revision, words", [
    ("Raspberry Pi 3 Model B Rev 1.2", 0xA52082, r"Pi 3 Model B Rev 1\.2, revision 0xa52082; its C "
     r"library learned the Pi 3 Model B Rev 1\.2 in October 2024.*docs/MAKERS\.md"),
    ("Raspberry Pi 3 Model A Plus Rev 1.1", 0x9020E1, r"revision 0x9020e1; .*Pi 3 Model A\+"),
    ("Raspberry Pi 4 Model B Rev 9.9", 0xD03199, r"revision 0xd03199; no release of its C library"),
])
def test_a_board_the_binding_does_not_know_is_named_with_the_fix(pi, model, revision, words):
    with pytest.raises(DriverError, match=words):
        Ws281xDriver(LEDS, strip_factory=UnknownBoardStrip, probe=pi(model=model, revision=revision))


class NoSpiStrip(PixelStripStandIn):
    def begin(self):
        raise RuntimeError("ws2811_init failed with code -13 (Unable to initialize SPI)")


def not_permitted(path, flags):
    raise PermissionError(errno.EPERM, "Operation not permitted", path)


@pytest.mark.parametrize("node, how, words", [
    ("spidev0.0", "missing", r"there is no .*spidev0\.0 yet \(udev makes it at boot\): the service restarts"),
    ("gpiomem", "missing", r"there is no .*gpiomem yet"),
    ("spidev0.0", "refused", r"spidev0\.0 appeared after the service started, so systemd does not let it open it"),
])
def test_an_spi_node_a_restart_picks_up_is_exit_75_not_a_bad_configuration(pi, monkeypatch, node, how, words):
    probe = pi(model=PI4, euid=1000)
    path = next(p for p in probe.spi_nodes if p.endswith(node))
    if how == "missing":
        os.remove(path)
    else:
        real_open = os.open
        monkeypatch.setattr(ws281x_module.os, "open", lambda p, f, *a: not_permitted(p, f) if p == path
                            else real_open(p, f, *a))
    with pytest.raises(DeviceNotReadyError, match=words):
        Ws281xDriver(LEDS, pin=10, strip_factory=NoSpiStrip, probe=probe)


def test_spi_nodes_that_open_leave_the_cause_to_the_usual_probes(pi):
    with pytest.raises(DriverError, match=r"could not start the LEDs on GPIO 10: .*Unable to initialize SPI") as error:
        Ws281xDriver(LEDS, pin=10, strip_factory=NoSpiStrip, probe=pi(model=PI4, euid=1000))
    assert not isinstance(error.value, DeviceNotReadyError)


def test_spi_frame_size_is_the_librarys_pcm_byte_count():
    # LED_BIT_COUNT(512, 800000) = 512*4*8*3 + 55*2400000/1000000 = 49284 bits; 6160 bytes + 8.
    assert ws281x_module.spi_frame_bytes(512) == 6168
    assert ws281x_module.spi_frame_bytes(512) > 4096  # spidev's default buffer


@pytest.mark.parametrize("bufsiz, words", [
    (None, "SPI is off.*dtparam=spi=on"),
    ("4096", r"spidev\.bufsiz=4096\) is smaller than a frame of 512 LEDs \(6168 bytes\).*cmdline\.txt"),
])
def test_spi_not_set_up_is_refused_before_starting(pi, bufsiz, words):
    with pytest.raises(DriverError, match=words):
        Ws281xDriver(LEDS, pin=10, strip_factory=PixelStripStandIn,
                     probe=pi(model=PI4, spidev_bufsiz=bufsiz))


class RenderFailingStrip(PixelStripStandIn):
    fail_after = 0

    def show(self):
        if self.shows >= self.fail_after:
            raise RuntimeError("ws2811_render failed with code -14 (SPI transfer error)")
        super().show()


@pytest.mark.parametrize("fail_after", [0, 1])
def test_a_frame_the_library_cannot_send_is_a_driver_error(pi, fail_after):
    strip = type("Strip", (RenderFailingStrip,), {"fail_after": fail_after})
    with pytest.raises(DriverError, match=r"SPI transfer of a frame failed: spidev\.bufsiz .* 6168"):
        driver = Ws281xDriver(LEDS, pin=10, strip_factory=strip, probe=pi(model=PI4))
        driver.show(leds_with((0, (1, 2, 3))), Frame(32, 16))


def test_dma_channel_5_is_refused_for_the_sd_card():
    with pytest.raises(DriverError, match="dma 5 .*SD card"):
        Ws281xDriver(LEDS, dma=5, strip_factory=PixelStripStandIn)


# --- leds-dev ----------------------------------------------------------------------------------


@pytest.fixture
def device(tmp_path):
    path = tmp_path / "leds0"
    path.write_bytes(b"")
    return path


def test_leds_dev_writes_rgbw_frames(device):
    driver = LedsDevDriver(LEDS, str(device))
    assert driver.light_response is KERNEL_GAMMA
    driver.show(leds_with((0, (1, 2, 3)), (511, (7, 8, 9))), Frame(32, 16))
    data = device.read_bytes()
    assert len(data) == LEDS * 4
    assert data[:8] == bytes([1, 2, 3, 0, 0, 0, 0, 0])
    assert data[-4:] == bytes([7, 8, 9, 0])
    driver.show(leds_with((1, (4, 5, 6))), Frame(32, 16))
    assert device.read_bytes()[:8] == bytes([0, 0, 0, 0, 4, 5, 6, 0])
    driver.close()
    driver.close()
    assert device.read_bytes() == bytes(LEDS * 4)


def test_leds_dev_gets_the_bytes_that_the_kernels_gamma_turns_into_the_stages_light(device):
    driver = LedsDevDriver(LEDS, str(device))
    stage = OutputStage(LAYOUT, power=PowerBudget(supply_amps=100), response=driver.light_response)
    frame = Frame(32, 16)
    frame.set(0, 0, (128, 64, 0))
    driver.show(stage.process(frame), frame)
    written = device.read_bytes()[:4]
    assert written[3] == 0 and KERNEL_GAMMA.light(written[:3]) == bytes([56, 12, 0])


def test_leds_dev_without_the_overlay_says_how_to_enable_it(tmp_path):
    with pytest.raises(DriverError, match="no .*leds0 .*: add dtoverlay=ws2812-pio.*num_leds=512"):
        LedsDevDriver(LEDS, str(tmp_path / "leds0"), wait_s=0)


# --- sim-headless ------------------------------------------------------------------------------


def test_headless_keeps_copies_and_a_bounded_history():
    driver = HeadlessDriver(32, 16, history=2)
    frame = Frame(32, 16)
    for value in (1, 2, 3):
        frame.fill((value, 0, 0))
        driver.show(leds_with((0, (value, 0, 0))), frame)
    frame.fill((99, 99, 99))
    assert driver.shown == 3
    assert driver.last_frame.get(5, 5) == (3, 0, 0)
    assert driver.last_leds[:3] == bytes([3, 0, 0])
    assert [f.get(0, 0) for f in driver.history] == [(2, 0, 0), (3, 0, 0)]
    driver.clear()
    assert driver.last_frame == Frame(32, 16) and driver.last_leds == bytes(LEDS * 3)


# --- sim-terminal ------------------------------------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_terminal_draws_dots_with_the_board_coordinates():
    stream = io.StringIO()
    driver = TerminalDriver(32, 16, stream)
    frame = Frame(32, 16)
    frame.set(0, 0, (255, 0, 0))
    frame.set(29, 15, (1, 2, 3))
    driver.show(b"", frame)
    output = stream.getvalue()
    assert output.startswith(HIDE_CURSOR)
    assert "\x1b[38;2;255;0;0m\u25cf " in output and "\x1b[38;2;1;2;3m\u25cf " in output
    lines = ANSI.sub("", output).split("\n")
    tens, units, *rows = lines
    assert len(rows) == 19  # 16 panel rows, two status lines and the message line
    assert [row[0] for row in rows[:16]] == list("ABCDEFGHIJKLMNOP")
    for x in range(32):
        column = 2 + 2 * x  # where the dot of column x is drawn
        assert all(row[column] == "\u25cf" for row in rows[:16])
        label = (tens[column] + units[column]).strip()
        assert label == (str(x + 1) if x < 30 else ""), x


def test_terminal_redraws_in_place_and_restores_the_cursor():
    stream = io.StringIO()
    driver = TerminalDriver(32, 16, stream)
    driver.show(b"", Frame(32, 16))
    first = len(stream.getvalue())
    driver.clear()
    second = stream.getvalue()[first:]
    assert second.startswith("\x1b[H") and HIDE_CURSOR not in second
    driver.status_line("pass to red, others look away")
    assert stream.getvalue().endswith("\x1b[19;1H\x1b[0mpass to red, others look away\x1b[K"
                                      "\x1b[20;1H\x1b[0m\x1b[K")  # the hint's second line cleared
    driver.close()
    assert stream.getvalue().endswith("\x1b[0m" + SHOW_CURSOR + "\n")
    size = len(stream.getvalue())
    driver.close()
    assert len(stream.getvalue()) == size


def test_terminal_status_line_set_before_the_first_frame_is_drawn_with_it():
    stream = io.StringIO()
    driver = TerminalDriver(32, 16, stream)
    driver.status_line("hello")
    assert stream.getvalue() == ""
    driver.show(b"", Frame(32, 16))
    assert ANSI.sub("", stream.getvalue()).endswith("\nhello\n\n")


# --- PNG ---------------------------------------------------------------------------------------


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB bytes of a PNG, read back with Pillow."""
    image = Image.open(io.BytesIO(data))
    assert (image.format, image.mode) == ("PNG", "RGB")
    raw = image.tobytes()
    stride = image.width * 3
    return image.width, image.height, [raw[y * stride : (y + 1) * stride] for y in range(image.height)]


def pixel(lines: list[bytes], x: int, y: int) -> tuple[int, ...]:
    return tuple(lines[y][3 * x : 3 * x + 3])


def test_png_draws_each_led_as_a_dot_on_black():
    frame = Frame(32, 16)
    frame.set(3, 2, (10, 200, 30))
    width, height, lines = decode_png(encode_png(frame, scale=10))
    assert (width, height) == (320, 160)
    assert pixel(lines, 35, 25) == (10, 200, 30)  # the middle of LED (3, 2)
    assert pixel(lines, 30, 20) == (0, 0, 0)  # its corner stays dark
    assert pixel(lines, 45, 25) == (0, 0, 0)  # the next LED is off


def test_png_without_dots_fills_the_cells():
    frame = Frame(32, 16)
    frame.fill((5, 6, 7))
    _, _, lines = decode_png(encode_png(frame, scale=3, dots=False))
    assert {pixel(lines, x, y) for x in range(96) for y in range(48)} == {(5, 6, 7)}


def test_png_driver_keeps_the_latest_frame(tmp_path):
    path = tmp_path / "panel.png"
    driver = PngDriver(32, 16, str(path), scale=4)
    frame = Frame(32, 16)
    frame.set(31, 15, (255, 255, 0))
    driver.show(leds_with(), frame)
    _, _, lines = decode_png(path.read_bytes())
    assert pixel(lines, 31 * 4 + 2, 15 * 4 + 2) == (255, 255, 0)
    driver.clear()
    _, _, lines = decode_png(path.read_bytes())
    assert pixel(lines, 31 * 4 + 2, 15 * 4 + 2) == (0, 0, 0)
    assert driver.written == 2
    assert [p.name for p in tmp_path.iterdir()] == ["panel.png"]  # no temporary files left
