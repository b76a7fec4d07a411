"""The 100 cue cards and the seeded shuffle.

The cards are the same in every game: they are built once from a fixed seed, each card holding
4 cells at pairwise distance >= 4 and no cell on two cards (400 of the 480 cells, as on the
printed cards). The shuffle uses its own small generator (SplitMix64) rather than `random`, so a
game record replays identically on every Python version for ever.
"""

from __future__ import annotations

from functools import cache

from console.game.board import ALL_CELLS, Cell, distance

CARD_COUNT = 100
CELLS_PER_CARD = 4
MIN_CARD_SPREAD = 4
_CARD_SEED = 0x48756573  # "Hues"
_MASK64 = (1 << 64) - 1


class SplitMix64:
    """A tiny, well-known 64-bit generator: deterministic from its seed, portable, fast enough."""

    def __init__(self, seed: int):
        self.state = seed & _MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform in [0, n) by rejection, so no value is favoured."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            v = self.next()
            if v < limit:
                return v % n


def shuffled(items: tuple[int, ...], seed: int, salt: int) -> tuple[int, ...]:
    """Fisher-Yates with a generator seeded by (game seed, salt): salt 0 is the opening shuffle,
    salt k the k-th reshuffle of the discards."""
    rng = SplitMix64(seed * 1_000_003 + salt)
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


@cache
def cards() -> tuple[tuple[Cell, ...], ...]:
    """The 100 cards, each 4 cells far apart; built by seeded greedy picking, retried until it fits."""
    for attempt in range(100):
        built = _try_build_cards(SplitMix64(_CARD_SEED + attempt))
        if built is not None:
            return built
    raise AssertionError("the fixed card set could not be built")  # pragma: no cover


def _try_build_cards(rng: SplitMix64) -> tuple[tuple[Cell, ...], ...] | None:
    free = list(ALL_CELLS)
    deck = []
    for _ in range(CARD_COUNT):
        card: list[Cell] = []
        candidates = free[:]
        while len(card) < CELLS_PER_CARD:
            candidates = [c for c in candidates if all(distance(c, k) >= MIN_CARD_SPREAD for k in card)]
            if not candidates:
                return None
            card.append(candidates.pop(rng.below(len(candidates))))
        for c in card:
            free.remove(c)
        deck.append(tuple(sorted(card)))
    return tuple(deck)
