"""How well the computer players play, in points: whole games of computer players only
(`bots.player.game_alone`, as `hues-console bot play` plays them), and the same games (the same
seeds, so the same deck and first giver) with one seat's pawns put by a random placer instead.

    .venv/bin/python -m bench bot-games [--games K] [--json]

Each game has `PLAYERS` players, seeds 1..K, at each level, in each of `LANGUAGES`. The random
placer (seat `RANDOM_SEAT`, seeded by the game's seed) puts each pawn on a free cell drawn at
random; when its turn to give comes it gives as the computer player would, so only the guessing
differs. Counted in regular rounds only (a tie-break's giver scores nothing and not everyone
guesses): a guesser's points per round it guesses (its two pawns), a giver's per round it gives.
Each figure is a mean over the games, with a 95 % interval from the spread of the seeds' means.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Iterable

from console.bots.player import Mover, game_alone, move
from console.game import rules
from console.game.board import ALL_CELLS
from console.game.rules import COMPUTER_LEVELS, GameState, Next, Place

PLAYERS = 5
LANGUAGES = ("en", "it", "cs", "ro", "es", "vi")
RANDOM_SEAT = 0
GAMES = 20
# the figures: the computer guesser in the seat the random placer takes, the random placer, the
# computer guessers beside it, the givers in the computers' games and in the random placer's
_ROWS = ("computer_guesser", "random_placer", "computer_guessers_beside_it", "giver", "giver_with_a_random_placer")


def random_placer(seat: int, seed: int) -> Mover:
    """The computer players' moves, but `seat`'s pawns on free cells drawn at random (seeded)."""
    rng = random.Random(seed)

    def mover(seen: GameState, who: int, level: str, lang: str):
        if who == seat and seen.phase in ("guess1", "guess2"):
            taken = {pawn.cell for pawn in seen.pawns}
            return Place(rng.choice([cell for cell in ALL_CELLS if cell not in taken]), who)
        return move(seen, who, level, lang)
    return mover


def scored_rounds(level: str, lang: str, seed: int, mover: Mover = move) -> Iterable[GameState]:
    """Each regular round of the game of `seed`, as scored."""
    state = None
    for action in game_alone(PLAYERS, seed, level, lang, mover=mover):
        state = rules.apply(state, action)
        if state.phase == "round_over" and not isinstance(action, Next) and not state.tiebreak:
            yield state


def game_means(level: str, lang: str, seed: int, mover: Mover = move) -> dict[str, float]:
    """One game's points per round: `RANDOM_SEAT`'s as a guesser, the other guessers', the givers'."""
    seat, others, givers = [], [], []
    for state in scored_rounds(level, lang, seed, mover):
        for who, points in enumerate(state.last_round_points):
            (givers if who == state.giver else seat if who == RANDOM_SEAT else others).append(points)
    return {"seat": statistics.fmean(seat), "others": statistics.fmean(others), "givers": statistics.fmean(givers)}


def _mean(per_seed: dict[int, list[float]]) -> dict:
    """The mean over every game and the half-width of its 95 % interval (normal) from the spread of
    the seeds' means: a seed deals the same cards and first giver in every language, so its games
    are not independent of each other; the seeds are."""
    seeds = [statistics.fmean(values) for values in per_seed.values()]
    half = 1.96 * statistics.stdev(seeds) / math.sqrt(len(seeds)) if len(seeds) > 1 else math.nan
    return {"mean": round(statistics.fmean(v for values in per_seed.values() for v in values), 3),
            "ci95": round(half, 3), "games": sum(map(len, per_seed.values()))}


def bot_game_figures(games: int = GAMES) -> dict:
    """Per level: the computer guesser's, the random placer's and the givers' points per round,
    and the computer guesser's in each language."""
    by_level = {}
    for level in COMPUTER_LEVELS:
        figures = {name: {seed: [] for seed in range(1, games + 1)} for name in _ROWS}
        by_language = {}
        for lang in LANGUAGES:
            guessing = []
            for seed in range(1, games + 1):
                computers = game_means(level, lang, seed)
                placer = game_means(level, lang, seed, random_placer(RANDOM_SEAT, seed))
                values = (computers["seat"], placer["seat"], placer["others"], computers["givers"], placer["givers"])
                for name, value in zip(_ROWS, values):
                    figures[name][seed].append(value)
                guessing.append(computers["seat"])
            by_language[lang] = round(statistics.fmean(guessing), 2)
        by_level[level] = {**{name: _mean(per_seed) for name, per_seed in figures.items()},
                           "computer_guesser_by_language": by_language}
    return {"players": PLAYERS, "seeds": f"1..{games}", "languages": list(LANGUAGES), "random_seat": RANDOM_SEAT,
            "levels": by_level}


def format_bot_games(figures: dict) -> str:
    lines = [f"games of {figures['players']} computer players, seeds {figures['seeds']}, in "
             f"{', '.join(figures['languages'])}; the same games with seat {figures['random_seat']}'s pawns put "
             f"at random: points per regular round (mean over the games, 95 % interval)"]
    for level, row in figures["levels"].items():
        by_language = row["computer_guesser_by_language"]
        lines.append(f"  {level}: " + "; ".join(f"{name.replace('_', ' ')} {d['mean']:.2f} ± {d['ci95']:.2f}"
                                                 for name, d in row.items() if name in _ROWS)
                     + f" ({row['giver']['games']} games of each kind); the computer guesser by language: "
                     + ", ".join(f"{lang} {points:.2f}" for lang, points in by_language.items()))
    return "\n".join(lines)
