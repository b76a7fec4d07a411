"""`hues-console screens --out DIR`: every screen of the panel as a PNG, for the README.

The pictures are drawn by `render` from a game played by the rules engine (the same actions a
party's presses give), so they cannot drift from what the panel shows: a test regenerates them
and compares them pixel by pixel with the checked-in ones. Each scene is a moment chosen to show
what the screen is for (pawns lit, a cursor in its player's colour, a page of scores).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Callable, Iterator

from console.commands.common import UsageError
from console.game import rules
from console.game.board import parse_cell
from console.game.rules import ChooseTarget, Clue, GameState, NewGame, Place
from console.view.render import render
from console.game.clue import check_clue
from console.view.screens import CLUE_PAGE_S, clue_seconds
from console.game.seating import PANEL, Seating, computer_holder
from console.view.ui import HOST_MENU, REVEAL_POINTS_S, REVEAL_SCORES_S, SetupChoices, Ui
from hal.frame import Frame
from hal.picture import write_png

SCALE = 16  # pixels a LED in the pictures
Scene = tuple[str, str, Callable[[], Frame]]  # (file name, what it shows, its frame)


def _cells(*names: str):
    return [parse_cell(name) for name in names]


def _game() -> GameState:
    """Five players, red gives first: the state each scene starts from."""
    return rules.apply(None, NewGame(players=5, seed=11, first_giver=0, variant="cards"))


def _guessing() -> GameState:
    state = _game()
    state = rules.apply(rules.apply(state, ChooseTarget(state.card_cells[1])), Clue())
    for cell in _cells("E9", "F7", "D4"):
        state = rules.apply(state, Place(cell))
    return state


def _second_clue() -> GameState:
    return rules.apply(_guessing(), Place(parse_cell("H4")))


def _scored() -> GameState:
    state = rules.apply(_second_clue(), Clue())
    for cell in _cells("E6", "F5", "G8", "C7"):
        state = rules.apply(state, Place(cell))
    return state


# A clue in each language of the phones, as the giver's phone would write it: accents the font
# folds, a word broken over two lines (Spanish), a word of two syllables (Vietnamese).
CLUES = {"en": "sunset", "it": "ciliegia", "cs": "třešeň", "ro": "cireașă", "es": "melocotón", "vi": "bầu trời"}


def _clued(lang: str) -> GameState:
    state = _game()
    words = check_clue(CLUES[lang], lang, second=False).words  # a clue the check lets through, as in play
    return rules.apply(rules.apply(state, ChooseTarget(state.card_cells[1])), Clue(words, lang, True))


def _clue_screen(lang: str) -> Frame:
    state = _clued(lang)
    return render(state, Ui(screen="play", clue_screen=clue_seconds(state.clues)), 0.2)


def _written_round() -> GameState:
    """The scored round with its clues written on the giver's phone: "sunset", then "ripe peach"."""
    state = rules.apply(_game(), ChooseTarget(_game().card_cells[1]))
    state = rules.apply(state, Clue(("sunset",), "en", True))
    for cell in _cells("E9", "F7", "D4", "H4"):
        state = rules.apply(state, Place(cell))
    state = rules.apply(state, Clue(("ripe", "peach"), "en", True))
    for cell in _cells("E6", "F5", "G8", "C7"):
        state = rules.apply(state, Place(cell))
    return state


def _with_computers(state: GameState) -> GameState:
    """`state` with its first and last seats computer players, as set-up puts them."""
    computers = tuple("expert:en" if seat in (0, state.players - 1) else "" for seat in range(state.players))
    return replace(state, computers=computers)


def _tied() -> GameState:
    state = _scored()
    return replace(state, phase="choose_target", round=11, tied=(1, 3), scores=(12, 19, 15, 19, 8),
                   giver=2, pawns=(), target=None, last_round_points=())


def _over() -> GameState:
    return replace(_scored(), phase="game_over", round=12, tied=(1, 3), winners=(3,),
                   scores=(12, 21, 15, 24, 8))


def scenes() -> Iterator[Scene]:
    """Every screen, in the order a party meets them."""
    game, guessing, second, scored = _game(), _guessing(), _second_clue(), _scored()
    yield "idle", "the idle board: a glint crosses it every 20 s; last winners in the status columns", lambda: render(
        None, Ui(screen="idle", last_winners=("green",)), 2.0)
    yield "setup", "set-up: the number of players", lambda: render(
        None, Ui(screen="setup", setup=SetupChoices(players=5)), 0.0)
    yield "setup-bots", "set-up: two of the five players computer players (a white bar on their seats)", (
        lambda: render(None, Ui(screen="setup", setup=SetupChoices(players=5, computers=2, item=1)), 0.0))
    yield "handoff", "hand-off: the panel says look away; A twice opens the secret choice", lambda: render(
        game, Ui(screen="handoff"), 0.3)
    yield "handoff-bot", "a computer player chooses its target: nobody needs to look away", lambda: render(
        _with_computers(game), Ui(screen="handoff", seating=Seating(secret=computer_holder(0))), 1.2)
    yield "secret", "the secret choice: the card's four colours on a dimmed board", lambda: render(
        game, Ui(screen="secret", card_choice=1, seating=Seating(secret=PANEL)), 0.3)
    yield "guessing", "guessing: pawns, the cursor in the guesser's colour, the loupe", lambda: render(
        guessing, Ui(screen="play", cursor=parse_cell("F5")), 0.45)
    yield "guessing-blink", "the same a moment later: pawns dark, the cursor's contrast phase", lambda: render(
        guessing, Ui(screen="play", cursor=parse_cell("F5")), 0.8)
    yield "second-clue", "the second clue: C (clue) or P (pass) in the status columns", lambda: render(
        second, Ui(screen="play"), 0.2)
    for lang in CLUES:
        yield f"clue-{lang}", f"a clue written on the giver's phone ({lang}), before the board returns", (
            lambda lang=lang: _clue_screen(lang))
    yield "reveal", "the reveal: the scoring frame flashes around the target", lambda: render(
        scored, Ui(screen="reveal"), 0.2)
    written = _written_round()
    yield "reveal-clues", "after the frame, the round's written clues again, a page each (the second in gold)", (
        lambda: render(written, Ui(screen="reveal", reveal_clues=clue_seconds(written.clues)),
                       REVEAL_POINTS_S + CLUE_PAGE_S + 0.1))
    yield "points", "the round's points, +N in each player's colour, in seat order", lambda: render(
        scored, Ui(screen="reveal"), REVEAL_POINTS_S + 0.1)
    yield "scoreboard", "the totals in seat order, the round as 1 over 10", lambda: render(
        scored, Ui(screen="reveal"), REVEAL_SCORES_S + 0.1)
    yield "tiebreak", "a tie: the tied players play a tie-break round", lambda: render(
        _tied(), Ui(screen="tiebreak"), 0.2)
    yield "game-over", "the winner's colour celebrates", lambda: render(
        _over(), Ui(screen="game_over"), 0.5)
    yield "host-menu", "the host menu (Start held 1.5 s during a game): continue, new, brightness, off", (
        lambda: render(guessing, Ui(screen="host", menu_item=1), 0.0))
    yield "host-pace", "the host menu's pace of the computer players: CALM (a person's) or FAST", (
        lambda: render(guessing, Ui(screen="host", menu_item=HOST_MENU.index("pace")), 0.0))
    yield "host-confirm", "a destructive choice asks first, NO chosen until changed", lambda: render(
        guessing, Ui(screen="confirm", menu_item=1), 0.0)


def write_screens(out: str) -> list[str]:
    """Write every scene to OUT/NAME.png; returns the paths written."""
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{out}: cannot make the folder for the pictures ({exc.strerror})") from None
    paths = []
    for name, _, draw in scenes():
        path = os.path.join(out, f"{name}.png")
        write_png(path, draw(), SCALE)
        paths.append(path)
    return paths


def screens_main(out: str) -> int:
    for path in write_screens(out):
        print(path)
    return 0
