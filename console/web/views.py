"""What each phone may see of the game: boardgame.io's playerView, as pure functions of the state.

Everything a message carries is built here from an explicit list of public fields, never by
dumping the state and deleting the secrets: the card, the target, the deck (its order, the
discards, the seed that shuffles it, which would give every future card) and what the giver is
pointing at while choosing (`ui.card_choice`, and `ui.cursor` on the secret screen) reach only
the giver's seat, and the target reaches the others only once the panel reveals it: the round is
scored and its last pawn no longer pending (until then a take_back can unscore it). There is no
separate "initial state" message that could leak what the views strip (boardgame.io bug #1159):
a phone's first view is built by the same function as every later one.
"""

from __future__ import annotations

import json

from console.game.board import Cell
from console.game.rules import GameState, current_player, regular_rounds
from console.view.palette import PAWN_COLORS, board_colors
from console.view.ui import Ui

GUESS_PHASES = ("guess1", "guess2")


def _hex(rgb) -> str:
    return "#%02x%02x%02x" % tuple(rgb)


def board_message() -> dict:
    """The 480 cells' colours (the palette's sRGB, as the panel shows them) and the pawns'."""
    return {
        "t": "board", "rows": 16, "cols": 30,
        "colors": [_hex(rgb) for rgb in board_colors()],
        "pawns": {name: _hex(rgb) for name, rgb in PAWN_COLORS.items()},
    }


def seat_view(game: GameState | None, ui: Ui, seat: int | None, *, host: bool = False,
              taken: tuple[int, ...] = (), host_pin: bool = False, host_seat: int | None = None) -> dict:
    """The view of `seat` (None: the public view, as the panel stream and watchers get it);
    `host_pin`: whether a PIN can make a phone the host (the page offers it then); `host_seat`:
    the colour whose phone is the host (the others' pages say whom they wait for)."""
    return {**_view_head(ui, seat, host, taken, host_pin, host_seat),
            "game": None if game is None else _public_game(game, ui), "you": _yours(game, ui, seat)}


class ViewTexts:
    """The views of one state as sent, `json.dumps(seat_view(...))` to the byte, with the public
    game (the same for every seat, and most of each view) encoded once: a tap reached 32 phones
    with ten distinct views, each encoding the whole game again."""

    def __init__(self, game: GameState | None, ui: Ui) -> None:
        self.game, self.ui = game, ui
        self._public = json.dumps(None if game is None else _public_game(game, ui))
        self._texts: dict[tuple, str] = {}

    def text(self, seat: int | None, *, host: bool = False, taken: tuple[int, ...] = (),
             host_pin: bool = False, host_seat: int | None = None) -> str:
        key = (seat, host, taken, host_pin, host_seat)
        text = self._texts.get(key)
        if text is None:
            head = json.dumps(_view_head(self.ui, *key))
            you = json.dumps(_yours(self.game, self.ui, seat))
            text = self._texts[key] = f'{head[:-1]}, "game": {self._public}, "you": {you}}}'
        return text


def _view_head(ui: Ui, seat: int | None, host: bool, taken: tuple[int, ...], host_pin: bool,
               host_seat: int | None) -> dict:
    return {
        "t": "view", "screen": ui.screen, "seat": seat, "host": host, "host_pin": host_pin,
        "host_seat": host_seat, "colors": list(ui.colors),
        "taken": list(taken),
        "setup": {"players": ui.setup.players, "variant": ui.setup.variant,
                  "first_giver": ui.setup.first_giver},
    }


def _yours(game: GameState | None, ui: Ui, seat: int | None) -> dict | None:
    return _private(game, ui, seat) if game is not None and seat is not None and seat < game.players else None


def public_view(game: GameState | None, ui: Ui) -> dict:
    return seat_view(game, ui, None)


def revealed_target(game: GameState, ui: Ui) -> Cell | None:
    return game.target_revealed if ui.pending is None else None


def giver_seat_locked(game: GameState | None, ui: Ui) -> bool:
    """Whether the giver's seat may not change hands now: from the moment the card is on the
    panel's secret screen or the target is chosen until the reveal. A guest who took that seat
    then (free, or freed for them) would be sent the card and the target; the giver's own phone
    comes back with its token instead (`resume`), which this does not stop."""
    if game is None or game.phase == "game_over" or revealed_target(game, ui) is not None:
        return False
    return game.target is not None or ui.screen == "secret"


def _public_game(game: GameState, ui: Ui) -> dict:
    guessing = game.phase in GUESS_PHASES and ui.screen == "play"
    target = revealed_target(game, ui)
    held_back = target is None and game.phase == "round_over"  # the last pawn still pending
    return {
        "players": game.players, "variant": game.variant, "colors": list(game.colors),
        "phase": "guess2" if held_back else game.phase, "round": game.round, "rounds": regular_rounds(game.players),
        "tiebreak": game.tiebreak, "tied": list(game.tied), "giver": game.giver,
        "giver_on_phone": ui.giver_on_phone(game),
        "turn": current_player(game), "to_place": list(game.to_place),
        "pawns": [[p.player, str(p.cell)] for p in game.pawns],
        "pending": None if ui.pending is None else [ui.pending.player, str(ui.pending.cell)],
        "cursor": str(ui.cursor) if guessing else None,
        "target": None if target is None else str(target),
        "scores": list(game.scores) if not held_back else [  # the points would tell the target
            s - p for s, p in zip(game.scores, game.last_round_points)],
        "last_round_points": list(game.last_round_points) if target is not None else [],
        "winners": list(game.winners),
    }


def _private(game: GameState, ui: Ui, seat: int) -> dict:
    """The seat's own: for the giver until the reveal, the card and the target."""
    mine = {"card": None, "target": None, "free": False}
    if seat == game.giver and revealed_target(game, ui) is None and game.phase != "game_over":
        cells = game.card_cells
        mine["card"] = None if cells is None else [str(c) for c in cells]
        mine["target"] = None if game.target is None else str(game.target)
        mine["free"] = game.variant == "free"
    return mine
