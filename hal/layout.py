"""Where each logical pixel sits on the LED chain, computed once as a lookup table.

The renderer draws on a logical canvas (x to the right, y down, as a person looks at the panel);
the LEDs are one long chain wired through one or more matrix panels. The wiring options follow
WLED's 2D set-up so that a host can copy them from a panel's datasheet:

* every panel is `panel_width` x `panel_height` LEDs; data enters it at `start_corner`; its LEDs
  run along rows (`vertical=False`) or columns (`vertical=True`); with `serpentine` every other
  row (column) runs back the other way.
* panels are chained row by row: the first row of panels left to right, then the next row of
  panels below it. With `panel_serpentine` every other row of panels is chained right to left
  (the cable snakes back). All panels are mounted the same way up and share the per-panel options.
* the logical canvas is the physical one turned by `rotation` degrees (0, 90, 180, 270): the
  picture is rotated that far clockwise onto the panels, so 90 and 270 swap width and height
  (panels mounted on their side). `mirror_x` / `mirror_y` then flip the logical picture left-right
  and top-bottom (panels seen from behind, or mounted upside down).
* with `scale` k, each logical pixel is a k x k block of LEDs: a 64x32 matrix shows the 32x16
  board twice as large, every LED of a block the same colour (no blur, no guessed colours).


Building the table costs a Python loop over every LED; doing it once keeps the per-frame work a
precomputed reorder in the output stage: the chain is cut into runs along which the logical
pixel moves by a fixed step (a panel's row, or column, forward or back), and each run is one
slice copy (three, one a channel, when it runs backwards or down a column): 64 copies for the
32x16 panel, against an index per byte.
"""

from __future__ import annotations

from dataclasses import dataclass

START_CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
ROTATIONS = (0, 90, 180, 270)

# The product's canvas: the 30 x 16 board plus two status columns on the right.
MIN_WIDTH = 32
MIN_HEIGHT = 16


class LayoutError(ValueError):
    """LED wiring options that do not describe a usable panel."""


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise LayoutError(f"layout {name} must be a whole number above 0, not {value!r}")
    return value


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise LayoutError(f"layout {name} must be true or false, not {value!r}")
    return value


@dataclass(frozen=True)
class LayoutOptions:
    panel_width: int = 16
    panel_height: int = 16
    panels_across: int = 2
    panels_down: int = 1
    start_corner: str = "top-left"
    vertical: bool = False
    serpentine: bool = True
    panel_serpentine: bool = False
    rotation: int = 0
    mirror_x: bool = False
    mirror_y: bool = False
    scale: int = 1

    def __post_init__(self) -> None:
        for name in ("panel_width", "panel_height", "panels_across", "panels_down", "scale"):
            _positive_int(name, getattr(self, name))
        for name in ("vertical", "serpentine", "panel_serpentine", "mirror_x", "mirror_y"):
            _flag(name, getattr(self, name))
        if self.start_corner not in START_CORNERS:
            raise LayoutError(
                f"layout start_corner must be one of {', '.join(START_CORNERS)}, "
                f"not {self.start_corner!r}"
            )
        if isinstance(self.rotation, bool) or self.rotation not in ROTATIONS:
            raise LayoutError(f"layout rotation must be 0, 90, 180 or 270, not {self.rotation!r}")
        width, height = self.physical_size
        if width % self.scale or height % self.scale:
            raise LayoutError(
                f"the LED panels make a {width}x{height} picture, which a scale of {self.scale} does not "
                f"divide into whole pixels: use a scale that divides both"
            )

    @property
    def physical_size(self) -> tuple[int, int]:
        """Width and height of the panels as mounted, before rotation."""
        return self.panel_width * self.panels_across, self.panel_height * self.panels_down


def _chain_position(options: LayoutOptions, px: int, py: int) -> int:
    """Chain position of the LED at physical (px, py), counted from the first LED the data reaches."""
    pw, ph = options.panel_width, options.panel_height
    panel_col, lx = divmod(px, pw)
    panel_row, ly = divmod(py, ph)
    if options.panel_serpentine and panel_row % 2 == 1:
        panel_col = options.panels_across - 1 - panel_col
    panel_number = panel_row * options.panels_across + panel_col

    # Flip the panel so that its start corner becomes the top-left one.
    if options.start_corner.endswith("right"):
        lx = pw - 1 - lx
    if options.start_corner.startswith("bottom"):
        ly = ph - 1 - ly
    line, along, line_length = (lx, ly, ph) if options.vertical else (ly, lx, pw)
    if options.serpentine and line % 2 == 1:
        along = line_length - 1 - along
    return panel_number * pw * ph + line * line_length + along


def _physical_position(options: LayoutOptions, x: int, y: int, width: int, height: int):
    """Physical (px, py) of logical (x, y) on a logical canvas of width x height."""
    if options.mirror_x:
        x = width - 1 - x
    if options.mirror_y:
        y = height - 1 - y
    rotation = options.rotation
    if rotation == 0:
        return x, y
    if rotation == 90:
        return height - 1 - y, x
    if rotation == 180:
        return width - 1 - x, height - 1 - y
    return y, width - 1 - x


class Layout:
    """The (x, y) -> chain position table for one wiring, and its inverse: `chain_index[y * width
    + x]` is where the logical pixel (x, y) sits on the chain (at a scale above 1, the first LED of
    its block), `logical_index[n]` the logical pixel the LED at chain position n shows.

    `minimum` is the smallest logical canvas accepted; the product needs MIN_WIDTH x MIN_HEIGHT,
    tests of a single small panel pass a smaller one.
    """

    __slots__ = ("options", "width", "height", "led_count", "leds_per_pixel", "chain_index", "logical_index",
                 "_copies")

    def __init__(
        self,
        options: LayoutOptions = LayoutOptions(),
        minimum: tuple[int, int] = (MIN_WIDTH, MIN_HEIGHT),
    ):
        physical_width, physical_height = options.physical_size
        if options.rotation in (90, 270):
            leds_across, leds_down = physical_height, physical_width
        else:
            leds_across, leds_down = physical_width, physical_height
        scale = options.scale
        width, height = leds_across // scale, leds_down // scale
        min_width, min_height = minimum
        if width < min_width or height < min_height:
            scaled = f" at scale {scale}" if scale > 1 else ""
            raise LayoutError(
                f"the LED panels make a {width}x{height} picture (after rotation {options.rotation}{scaled}), "
                f"but the board needs at least {min_width}x{min_height}: check panel size, "
                f"panels_across, panels_down, rotation and scale"
            )
        self.options = options
        self.width = width
        self.height = height
        self.led_count = leds_across * leds_down
        self.leds_per_pixel = scale * scale
        # Where each LED of the turned (not yet scaled) canvas sits on the chain, and its inverse.
        canvas_chain = [
            _chain_position(options, *_physical_position(options, x, y, leds_across, leds_down))
            for y in range(leds_down)
            for x in range(leds_across)
        ]
        canvas_of_chain = [0] * self.led_count
        for canvas, chain in enumerate(canvas_chain):
            canvas_of_chain[chain] = canvas
        self.chain_index: tuple[int, ...] = tuple(
            canvas_chain[y * scale * leds_across + x * scale] for y in range(height) for x in range(width))
        self.logical_index: tuple[int, ...] = tuple(
            (canvas // leds_across // scale) * width + (canvas % leds_across) // scale for canvas in canvas_of_chain)
        self._copies = _run_copies(tuple(canvas_of_chain))

    def to_chain(self, pixels: bytes | bytearray) -> bytes:
        """Logical pixels (3 bytes each, row by row) in chain order: `pixels` of the LED at
        chain position n is logical pixel `logical_index[n]` (at a scale above 1, every LED of a
        pixel's block gets that pixel's bytes)."""
        if self.leds_per_pixel > 1:
            pixels = self._scaled(pixels)
        chain = bytearray(len(pixels))
        for to, source in self._copies:
            chain[to] = pixels[source]
        return bytes(chain)

    def _scaled(self, pixels: bytes | bytearray) -> bytearray:
        """The picture `scale` times larger each way, each pixel a block of its own colour: 3 x
        scale slice copies widen every row at once, then each wide row is laid `scale` times."""
        scale = self.options.scale
        wide = bytearray(len(pixels) * scale)
        for dx in range(scale):
            for channel in range(3):
                wide[3 * dx + channel::3 * scale] = pixels[channel::3]
        row = 3 * self.width * scale
        return bytearray().join(wide[y:y + row] for y in range(0, len(wide), row) for _ in range(scale))

    def __repr__(self) -> str:
        return f"Layout({self.width}x{self.height}, {self.options})"


def _run_copies(logical_index: tuple[int, ...]) -> tuple[tuple[slice, slice], ...]:
    """(chain bytes, logical bytes) slice pairs that reorder a frame: one per run of chain
    positions whose logical pixels are `step` apart, one per channel where step is not 1."""
    copies = []
    start, count = 0, len(logical_index)
    while start < count:
        first = logical_index[start]
        step = logical_index[start + 1] - first if start + 1 < count else 1
        end = start + 1
        while end < count and logical_index[end] - logical_index[end - 1] == step:
            end += 1
        length = end - start
        if step == 1:
            copies.append((slice(3 * start, 3 * end), slice(3 * first, 3 * (first + length))))
        else:
            for channel in range(3):
                stop = 3 * (first + step * length) + channel  # past the run's last pixel; below 0: to the start
                copies.append((slice(3 * start + channel, 3 * end, 3),
                               slice(3 * first + channel, stop if stop >= 0 else None, 3 * step)))
        start = end
    return tuple(copies)
