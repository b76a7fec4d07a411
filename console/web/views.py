"""What each phone may see of the game: boardgame.io's playerView, as pure functions of the state.

Everything a message carries is built here from an explicit list of public fields, never by
dumping the state and deleting the secrets. The deck (its order, the discards, the seed that
shuffles it, which would give every future card) and what the giver is pointing at while
choosing (`ui.card_choice`, and `ui.cursor` on the secret screen) reach no phone; the card and
the target reach only the round's secret holder (game/seating.py): the connection whose seat
token the round was dealt to, whatever seat or screen it is on, never whoever sits in the
giver's seat now. The target reaches the others once the panel reveals it: the round is scored
and its last pawn no longer pending (until then a take_back can unscore it). There is no
separate "initial state" message that could leak what the views strip (boardgame.io bug #1159):
a phone's first view is built by the same function as every later one.

A view: {"t": "view", "screen", "seat" (this phone's colour or null), "host", "host_pin", "host_seat",
"colors", "taken" (colours phones and computer players hold), "open" (colours a phone may take
now: mid-game the joystick's are not, until the host hands one over, and a computer player's
never), "setup", "clue_check" (written clues are held to the clue rules), "fast_computers" (the
host asked the computer players to play quicker than a person), "game" (the public game, null
before one; its "clues" are the round's, as given, from the moment each is given until the next
round: public, like a clue said aloud; its "computers", per seat, the level of the computer
player in it or null for a person, public as the set-up was), "you" (null without a colour in
the game, else {"card", "target", "free", "holder"}: "holder" is true for the phone the round
was dealt to, the only one whose card, target and free are ever set; a phone that took the
giver's colour later sees a guesser's)}.
"""

from __future__ import annotations

import json

from console.game.board import Cell
from console.game.record import clue_json
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


def seat_view(game: GameState | None, ui: Ui, seat: int | None, *, digest: str | None = None,
              host: bool = False, taken: tuple[int, ...] = (), open_seats: tuple[int, ...] = (),
              host_pin: bool = False, host_seat: int | None = None) -> dict:
    """The view of the phone in `seat` (None: the public view, as the panel stream and watchers
    get it) holding it with the token of `digest`; `host_pin`: whether a PIN can make a phone
    the host (the page offers it then); `host_seat`: the colour whose phone is the host (the
    others' pages say whom they wait for)."""
    return {**_view_head(ui, seat, host, taken, open_seats, host_pin, host_seat),
            "game": None if game is None else _public_game(game, ui),
            "you": _yours(game, ui, seat, holds_secret(ui, digest))}


class ViewTexts:
    """The views of one state as sent, `json.dumps(seat_view(...))` to the byte, with what is the
    same for many phones encoded once: the public game (most of each view), the head's fields
    after seat and host, and the private part, which is the same for every phone but the round's
    secret holder. A tap reached 32 phones with 32 views, each encoding its head and part again.
    `before`, the views of the state published before this one, lends its parts where this
    state has the same inputs: a cursor move (most taps) changes the game's "cursor" alone, and
    the rest of the game was encoded again at every tap (two thirds of a view's cost)."""

    def __init__(self, game: GameState | None, ui: Ui, before: ViewTexts | None = None) -> None:
        self.game, self.ui = game, ui
        # what the game's text and the private parts are made of besides `game` itself (by
        # identity: a state not changed is the same object) and the cursor
        self._game_key = (ui.pending, ui.seating.secret)
        cursor = _public_cursor(game, ui)
        # the cursor's value as joined into each view: a cell's name is json.dumps's own text
        self._cursor = "" if game is None else "null" if cursor is None else f'"{cursor}"'
        same_game = before is not None and before.game is game and before._game_key == self._game_key
        if same_game:
            self._around_cursor, self._yours = before._around_cursor, before._yours
        else:
            self._around_cursor, self._yours = _game_around_cursor(game, ui), {}
        same_rests = before is not None and before.ui.colors == ui.colors and before.ui.clue_check == ui.clue_check and (
            before.ui.fast_computers == ui.fast_computers) and (
            before.ui.setup is ui.setup or before.ui.setup == ui.setup)  # a step keeps the set-up object
        self._rests: dict[tuple, str] = before._rests if same_rests else {}
        # each phone's head ('{"t": "view", "screen": ..., "seat": ..., "host": ...'): the same while the screen is
        same_heads = before is not None and before.ui.screen == ui.screen
        self._heads: dict[tuple, str] = before._heads if same_heads else {}
        # each view's text before and after the cursor's value: all the same as `before`'s when
        # only the cursor moved (most taps)
        self._around: dict[tuple, tuple[str, str]] = (
            before._around if same_game and same_rests and same_heads else {})
        self._texts: dict[tuple, str] = {}  # whole views of this state, for phones that see the same

    def text(self, seat: int | None, *, digest: str | None = None, host: bool = False,
             taken: tuple[int, ...] = (), open_seats: tuple[int, ...] = (), host_pin: bool = False,
             host_seat: int | None = None) -> str:
        key = (seat, holds_secret(self.ui, digest), host, taken, open_seats, host_pin, host_seat)
        text = self._texts.get(key)  # all a view is made of besides the state
        if text is None:
            around = self._around.get(key)
            if around is None:
                around = self._around[key] = self._text_around(*key)
            text = self._texts[key] = f"{around[0]}{self._cursor}{around[1]}"
        return text

    def _text_around(self, seat: int | None, holder: bool, host: bool, *rest_key) -> tuple[str, str]:
        rest = self._rests.get(rest_key)
        if rest is None:  # '"host_pin": ..., "setup": {...}', json.dumps's own separators
            rest = self._rests[rest_key] = json.dumps(_head_rest(self.ui, *rest_key))[1:-1]
        playing = self.game is not None and seat is not None and seat < self.game.players
        you = self._yours.get((playing, holder))
        if you is None:
            you = self._yours[playing, holder] = json.dumps(_yours(self.game, self.ui, seat, holder))
        head = self._heads.get((seat, host))
        if head is None:
            head = self._heads[seat, host] = json.dumps(_head_start(self.ui, seat, host))[:-1]
        start, end = ("null", "") if self.game is None else self._around_cursor
        return f'{head}, {rest}, "game": {start}', f'{end}, "you": {you}}}'


_CURSOR_MARK = "\x00"  # no cell's name: where the cursor's value goes in the game's text


def _game_around_cursor(game: GameState | None, ui: Ui) -> tuple[str, str]:
    """The public game's JSON before and after its cursor's value."""
    if game is None:
        return "", ""
    text = json.dumps({**_public_game(game, ui), "cursor": _CURSOR_MARK})
    start, end = text.split(json.dumps(_CURSOR_MARK))
    return start, end


def _view_head(ui: Ui, seat: int | None, host: bool, taken: tuple[int, ...], open_seats: tuple[int, ...],
               host_pin: bool, host_seat: int | None) -> dict:
    return {**_head_start(ui, seat, host), **_head_rest(ui, taken, open_seats, host_pin, host_seat)}


def _head_start(ui: Ui, seat: int | None, host: bool) -> dict:
    return {"t": "view", "screen": ui.screen, "seat": seat, "host": host}


def _head_rest(ui: Ui, taken: tuple[int, ...], open_seats: tuple[int, ...], host_pin: bool,
               host_seat: int | None) -> dict:
    return {
        "host_pin": host_pin, "host_seat": host_seat, "colors": list(ui.colors),
        "taken": list(taken), "open": list(open_seats),
        "setup": {"players": ui.setup.players, "variant": ui.setup.variant,
                  "first_giver": ui.setup.first_giver},
        "clue_check": ui.clue_check, "fast_computers": ui.fast_computers,
    }


def _yours(game: GameState | None, ui: Ui, seat: int | None, holder: bool) -> dict | None:
    return _private(game, ui, holder) if game is not None and seat is not None and seat < game.players else None


def public_view(game: GameState | None, ui: Ui) -> dict:
    return seat_view(game, ui, None)


def revealed_target(game: GameState, ui: Ui) -> Cell | None:
    return game.target_revealed if ui.pending is None else None


def holds_secret(ui: Ui, digest: str | None) -> bool:
    """Whether the phone holding its seat with the token of `digest` is the round's secret holder."""
    return ui.seating.holds_secret(digest)


def _public_cursor(game: GameState | None, ui: Ui) -> str | None:
    """Where the guesser's cursor is, while a guesser is choosing on the panel's board."""
    guessing = game is not None and game.phase in GUESS_PHASES and ui.screen == "play"
    return str(ui.cursor) if guessing else None


def _public_game(game: GameState, ui: Ui) -> dict:
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
        "cursor": _public_cursor(game, ui),
        "target": None if target is None else str(target),
        "scores": list(game.scores) if not held_back else [  # the points would tell the target
            s - p for s, p in zip(game.scores, game.last_round_points)],
        "last_round_points": list(game.last_round_points) if target is not None else [],
        "winners": list(game.winners),
        "clues": [clue_json(clue) for clue in game.clues],
        "computers": [_level(game.computer(seat)) for seat in range(game.players)],
    }


def _level(computer: tuple[str, str] | None) -> str | None:
    return None if computer is None else computer[0]


def _private(game: GameState, ui: Ui, holder: bool) -> dict:
    """The phone's own: for the round's secret holder until the reveal, the card and the target."""
    mine = {"card": None, "target": None, "free": False, "holder": holder}
    if holder and revealed_target(game, ui) is None and game.phase != "game_over":
        cells = game.card_cells
        mine["card"] = None if cells is None else [str(c) for c in cells]
        mine["target"] = None if game.target is None else str(game.target)
        mine["free"] = game.variant == "free"
    return mine
