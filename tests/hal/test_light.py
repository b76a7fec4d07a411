"""The light the LEDs really get, on every driver: the kernel's gamma table on a Pi 5, the
output stage writing for it, the limiter counting it, `palette` reporting it, and a stand-in
for /dev/leds0 that behaves like raspberrypi/linux drivers/misc/ws2812-pio-rp1.c."""

from __future__ import annotations

import errno
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from console.commands import main as cli
from console.commands.session import board_led_values
from console.commands.wiring import output_stage
from console.config.loader import load_config
from console.view.palette import led_separation
from hal.drivers import DriverError, light_response_of
from hal.drivers.leds_dev import KERNEL_GAMMA, DeviceNotReadyError, LedsDevDriver, overlay_num_leds
from hal.frame import Frame
from hal.layout import Layout, LayoutOptions
from hal.light import LINEAR, LightResponse
from hal.output import OutputStage, PowerBudget
from tests.fakes import FakeClock
from tests.ws2812_pio import Ws2812PioStandIn

LAYOUT = Layout(LayoutOptions())
LEDS = LAYOUT.led_count
DEVICE = "/dev/leds0"
RESPONSES = [LINEAR, KERNEL_GAMMA]

# Rows of ws2812_gamma[] as printed in drivers/misc/ws2812-pio-rp1.c (inputs 16-31, 64-79, 240-255).
KERNEL_ROWS = {
    16: [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2],
    64: [11, 12, 12, 13, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18],
    240: [222, 224, 227, 229, 231, 233, 235, 237, 239, 241, 244, 246, 248, 250, 252, 255],
}


def default_config(tmp_path):
    return load_config(None, environ={}, etc_path=str(tmp_path / "none.yaml"))


# --- the kernel's table and its inverse ---------------------------------------------------------


@pytest.mark.parametrize("start", sorted(KERNEL_ROWS))
def test_kernel_gamma_is_the_drivers_table(start):
    assert list(KERNEL_GAMMA.table[start:start + 16]) == KERNEL_ROWS[start]


@pytest.mark.parametrize("response", RESPONSES, ids=lambda r: r.name)
def test_encode_gives_every_reachable_light_exactly_and_the_nearest_otherwise(response):
    wanted = bytes(range(256))
    got = response.light(response.encode(wanted))
    for light in range(256):
        nearest = min(abs(value - light) for value in response.table)
        assert abs(got[light] - light) == nearest


@given(st.lists(st.integers(0, 255), min_size=256, max_size=256).map(sorted))
def test_the_inverse_is_the_nearest_light_darker_on_a_tie_and_the_lowest_byte_giving_it(values):
    response = LightResponse("any", bytes(values))
    for light in range(256):
        best = min(range(256), key=lambda byte: (abs(values[byte] - light), values[byte], byte))
        assert response.encode(bytes([light]))[0] == best


def test_light_tables_must_rise():
    with pytest.raises(ValueError, match="256 rising"):
        LightResponse("broken", bytes(range(255, -1, -1)))


@pytest.mark.parametrize("brightness", [0.1, 0.3, 0.5, 1.0])
def test_the_same_brightness_gives_the_same_light_on_a_pi4_and_a_pi5(brightness):
    frame = Frame(LAYOUT.width, LAYOUT.height, bytearray(bytes(range(256)) * 6))
    plenty = PowerBudget(supply_amps=100)
    pi4, pi5 = (OutputStage(LAYOUT, brightness, power=plenty, response=r) for r in RESPONSES)
    light4 = pi4.light(pi4.process(frame))
    light5 = pi5.light(pi5.process(frame))
    # Equal wherever the kernel's table reaches the light (all of 0..74), else its nearest value.
    assert max(abs(a - b) for a, b in zip(light4, light5)) <= 1
    assert all(a == b for a, b in zip(light4, light5) if a < 75)


@settings(max_examples=60, deadline=None)
@given(pixels=st.binary(min_size=LEDS * 3, max_size=LEDS * 3), supply_amps=st.floats(1.5, 30),
       brightness=st.floats(0.02, 1.0))
def test_the_pi5_limiter_counts_the_light_after_the_kernels_table(pixels, supply_amps, brightness):
    power = PowerBudget(supply_amps=supply_amps)
    stage = OutputStage(LAYOUT, brightness, power=power, response=KERNEL_GAMMA)
    leds = stage.process(Frame(LAYOUT.width, LAYOUT.height, bytearray(pixels)))
    assert power.estimate_ma(stage.light(leds)) <= power.budget_ma + 1e-9


# --- the palette goal on every driver -----------------------------------------------------------


@pytest.mark.parametrize("driver", ["ws281x", "leds-dev"])
def test_the_board_survives_the_leds_on_a_pi4_and_a_pi5(tmp_path, driver):
    """At the full-board brightness: 480 distinct LED values, every two cells at least 0.01
    apart in OKLab in the light that reaches the LEDs (after the kernel's table on a Pi 5)."""
    stage = output_stage(default_config(tmp_path), light_response_of(driver))
    leds, brightness = board_led_values(stage)
    lights = [tuple(stage.light(bytes(led))) for led in leds]
    assert 0.25 < brightness < 0.4
    assert len(set(leds)) == 480
    assert led_separation(lights, brightness) >= 0.01
    current = stage.power.current_ma(sum(map(sum, lights)), LEDS)
    assert 0.95 * stage.power.budget_ma < current <= stage.power.budget_ma


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No /etc or $HUES_CONFIG file from this machine leaks into a test."""
    monkeypatch.setenv("HUES_CONFIG", str(tmp_path / "console.yaml"))
    (tmp_path / "console.yaml").write_text("store:\n  url: memory://\n")
    return tmp_path


def palette_json(capsys, *args):
    assert cli.main(["palette", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_palette_reports_bytes_light_and_current_for_the_modelled_driver(isolated, capsys):
    pi4 = palette_json(capsys, "--driver", "ws281x")
    pi5 = palette_json(capsys, "--driver", "leds-dev")
    assert (pi4["driver"], pi5["driver"]) == ("ws281x", "leds-dev")
    for report in (pi4, pi5):
        assert len(report["cells"]) == 480
        assert set(report["cells"][0]) == {"cell", "rgb", "led", "light"}
        light_sum = sum(sum(c["light"]) for c in report["cells"])
        assert report["current_ma"] == pytest.approx(light_sum * 55 / 765 + LEDS, abs=0.1)
        assert report["power_w"] == pytest.approx(report["current_ma"] * 5 / 1000, abs=0.01)
    assert all(c["led"] == c["light"] for c in pi4["cells"])
    a1 = pi5["cells"][0]
    assert a1["light"] == [KERNEL_GAMMA.table[v] for v in a1["led"]]
    assert abs(pi4["brightness"] - pi5["brightness"]) < 0.01


def test_palette_refuses_an_unknown_driver(isolated, capsys):
    assert cli.main(["palette", "--driver", "neopixel"]) == 2
    assert "neopixel" in capsys.readouterr().err


# --- the leds-dev driver against the kernel driver's stand-in -----------------------------------


@pytest.fixture
def kernel():
    return Ws2812PioStandIn(DEVICE, LEDS, brightness=128)  # the overlay's brightness=128


def test_the_driver_sets_the_kernel_brightness_to_full_then_the_leds_get_the_stages_light(kernel):
    driver = LedsDevDriver(LEDS, DEVICE, files=kernel)
    assert kernel.brightness == 255  # the 1-byte write at offset 0
    stage = OutputStage(LAYOUT, 0.5, power=PowerBudget(supply_amps=100), response=driver.light_response)
    frame = Frame(LAYOUT.width, LAYOUT.height)
    frame.fill((180, 120, 40))  # lights 59, 24, 2: all reachable through the kernel table
    leds = stage.process(frame)
    driver.show(leds, frame)
    assert kernel.light() == stage.light(leds)
    pi4 = OutputStage(LAYOUT, 0.5, power=PowerBudget(supply_amps=100))
    assert kernel.light() == pi4.process(frame)  # the same light as rpi-ws281x sends on a Pi 4
    driver.close()
    assert kernel.light() == bytes(LEDS * 3)


@pytest.mark.parametrize("num_leds", [LEDS - 1, 60])
def test_an_overlay_with_too_few_leds_names_num_leds(num_leds):
    kernel = Ws2812PioStandIn(DEVICE, num_leds)
    driver = LedsDevDriver(LEDS, DEVICE, files=kernel)
    with pytest.raises(DriverError, match=f"fewer LEDs than the panel's {LEDS}: set num_leds={LEDS}"):
        driver.show(bytes(LEDS * 3), Frame(32, 16))


def test_the_stand_in_fails_like_the_kernel_past_the_buffer():
    kernel = Ws2812PioStandIn(DEVICE, 2)
    fd = kernel.open(DEVICE, 0)
    assert kernel.write(fd, bytes(4)) == 4
    with pytest.raises(OSError) as error:
        kernel.write(fd, bytes(8))  # a kept-open handle: the position has moved on
    assert error.value.errno == errno.ENOSPC
    with pytest.raises(OSError) as error:
        kernel.write(kernel.open(DEVICE, 0), bytes(12))
    assert error.value.errno == errno.EFBIG
    assert kernel.write_end == 8  # the first 8 bytes were still taken


def test_a_device_udev_has_not_made_yet_is_waited_for(kernel):
    clock = FakeClock()
    kernel.present = False

    def sleep(seconds):
        clock.sleep(seconds)
        if clock.now >= 3:
            kernel.present = True

    driver = LedsDevDriver(LEDS, DEVICE, files=kernel, clock=clock, sleep=sleep)
    assert 3 <= clock.now < 4 and driver.led_count == LEDS


def test_a_device_that_never_comes_is_configuration_after_the_wait(kernel):
    clock = FakeClock()
    kernel.present = False
    with pytest.raises(DriverError, match="no /dev/leds0 \\(waited 30 s\\): add dtoverlay=ws2812-pio") as error:
        LedsDevDriver(LEDS, DEVICE, files=kernel, clock=clock, sleep=clock.sleep)
    assert not isinstance(error.value, DeviceNotReadyError)
    assert 30 <= clock.now < 31


def test_a_device_the_service_may_not_open_yet_asks_for_a_restart(kernel):
    kernel.refused = True
    with pytest.raises(DeviceNotReadyError, match="restarts"):
        LedsDevDriver(LEDS, DEVICE, files=kernel)


def write_num_leds(tree, num_leds, name="ws2812_pio@18"):
    node = tree / name
    node.mkdir(parents=True)
    (node / "rpi,num-leds").write_bytes(num_leds.to_bytes(4, "big"))  # one device-tree cell


def test_the_overlays_num_leds_is_read_from_its_device_tree_node(tmp_path):
    assert overlay_num_leds(str(tmp_path)) is None
    write_num_leds(tmp_path, 600)
    assert overlay_num_leds(str(tmp_path)) == 600
    write_num_leds(tmp_path, 60, name="ws2812_pio@4")  # two overlays: which is ours is unknown
    assert overlay_num_leds(str(tmp_path)) is None


def test_a_larger_overlay_gets_whole_buffers_so_no_frame_waits_50_ms():
    kernel = Ws2812PioStandIn(DEVICE, 600)
    driver = LedsDevDriver(LEDS, DEVICE, num_leds=600, files=kernel)
    driver.show(bytes([9]) * (LEDS * 3), Frame(32, 16))
    driver.close()
    assert kernel.delayed == 0 and kernel.frames == 3  # brightness, frame, clear
    unpadded = Ws2812PioStandIn(DEVICE, 600)
    LedsDevDriver(LEDS, DEVICE, files=unpadded).show(bytes(LEDS * 3), Frame(32, 16))
    assert unpadded.delayed == 1  # what an unknown num_leds costs


def test_the_num_leds_error_names_the_overlays_value():
    driver = LedsDevDriver(LEDS, DEVICE, num_leds=60, files=Ws2812PioStandIn(DEVICE, 60))
    with pytest.raises(DriverError, match=r"leds0 \(num_leds=60\) holds fewer LEDs than the panel's 512"):
        driver.show(bytes(LEDS * 3), Frame(32, 16))
