"""The rules of Hues and Cues as a pure state machine.

`apply(state, action)` returns the next state or raises RuleError; nothing here reads a clock,
touches I/O or draws randomness except from the seed in the state, so a game record replays to
the same state anywhere (`replay` is a fold). The shape follows OpenSpiel's python games:
`current_player`, `legal_actions`, `apply`, `is_terminal`.

A round: the giver picks a secret target (from a drawn card, or any cell in the `free`
variant), gives a clue, everyone else places a pawn clockwise from the giver's left, the giver
gives a second clue or passes, everyone places a second pawn counter-clockwise from the giver's
right, and the round is scored around the target.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache, reduce
from operator import attrgetter
from typing import Callable, Iterable, Union

from console.game.board import ALL_CELLS, Cell, RuleError, brief_repr, distance
from console.game.clue import LANGUAGES
from console.game.deck import CARD_COUNT, cards, shuffled

__all__ = [
    "RuleError", "NewGame", "ChooseTarget", "Redeal", "Clue", "Place", "TakeBack", "SkipClue", "Next", "Action",
    "GameState", "Pawn", "apply", "replay", "legal_actions", "current_player", "is_terminal",
    "regular_rounds", "PHASES", "VARIANTS", "DEFAULT_COLOR_NAMES",
]

PHASES = ("choose_target", "clue1", "guess1", "clue2", "guess2", "round_over", "game_over")
VARIANTS = ("cards", "free")
MIN_PLAYERS, MAX_PLAYERS = 3, 10
# How well a computer player plays: the child aims less well and knows fewer words.
COMPUTER_LEVELS = ("child", "expert")
MAX_CLUE_TEXT = 64  # a written clue's words together, in characters: a record's bound (the check's is lower)
DEFAULT_COLOR_NAMES = (
    "red", "orange", "yellow", "green", "cyan", "blue", "purple", "pink", "white", "black",
)


# --- actions: exactly the game-record vocabulary -------------------------------------------


@dataclass(frozen=True)
class NewGame:
    players: int
    seed: int = 0
    first_giver: int = 0
    variant: str = "cards"
    colors: tuple[str, ...] | None = None
    # Who plays each seat: "" a person, "<level>:<lang>" a computer player of that level writing
    # its clues in that language (`computer_entry`); empty: people in every seat (older records).
    computers: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChooseTarget:
    cell: Cell


@dataclass(frozen=True)
class Redeal:
    """The cue giver's card goes to the discards unplayed and the next one is drawn (cards
    variant, before the target is chosen). The console records one when the giver's seat changes
    hands then: a card someone else has seen is never the new giver's."""


@dataclass(frozen=True)
class Clue:
    """A clue given. Spoken aloud (a tap), the console does not hear it: no words. Written on the
    giver's phone: `words` as the room is shown them (the check's display form), the `lang` they
    were written in, and whether the console `checked` them against the clue rules (the host may
    switch the check off). The engine never checks the words: that is done before the action is
    made, and a stored game must replay whatever a later version's word lists say."""

    words: tuple[str, ...] = ()
    lang: str | None = None
    checked: bool = False

    @property
    def written(self) -> bool:
        return bool(self.words)


@dataclass(frozen=True)
class Place:
    cell: Cell
    player: int | None = None


@dataclass(frozen=True)
class TakeBack:
    """The pawn placed by the action just before goes back to its player, whose turn it is
    again. Only right after a `place`: the panel offers it until the next player acts."""


@dataclass(frozen=True)
class SkipClue:
    pass


@dataclass(frozen=True)
class Next:
    pass


Action = Union[NewGame, ChooseTarget, Redeal, Clue, Place, TakeBack, SkipClue, Next]


# --- state ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pawn:
    player: int
    cell: Cell


_PAWN_CELL = attrgetter("cell")


@dataclass(frozen=True)
class GameState:
    players: int
    seed: int
    variant: str
    colors: tuple[str, ...]
    phase: str
    round: int  # 1-based, tie-break rounds counted
    giver: int
    scores: tuple[int, ...]
    deck: tuple[int, ...] = ()  # card ids still to draw, top first
    discards: tuple[int, ...] = ()
    reshuffles: int = 0
    card: int | None = None  # the card drawn this round (cards variant)
    target: Cell | None = None  # secret until the round is scored
    pawns: tuple[Pawn, ...] = ()
    to_place: tuple[int, ...] = ()  # guessers still to place in this guess phase, in order
    tied: tuple[int, ...] = ()  # the players breaking a tie; empty in regular rounds
    last_round_points: tuple[int, ...] = ()  # the round just scored (round_over, game_over)
    winners: tuple[int, ...] = ()
    can_take_back: bool = False  # the last action was a place: take_back may undo it
    clues: tuple[Clue, ...] = ()  # this round's clues as given, kept until the next round starts
    said: tuple[Clue, ...] = ()  # the clues of the rounds before, in order: what the table has heard
    computers: tuple[str, ...] = ()  # per seat: "" a person, "<level>:<lang>" a computer player (NewGame's)

    @property
    def tiebreak(self) -> bool:
        return bool(self.tied)

    @property
    def card_cells(self) -> tuple[Cell, ...] | None:
        return None if self.card is None else cards()[self.card]

    @property
    def target_revealed(self) -> Cell | None:
        """The target as the table may see it: only once the round is scored."""
        return self.target if self.phase in ("round_over", "game_over") else None

    def occupied(self, cell: Cell) -> bool:
        return cell in map(_PAWN_CELL, self.pawns)

    def computers_guess(self) -> bool:
        """Whether a computer player guesses in this round (in a tie-break, only the tied guess)."""
        guessers = self.tied or tuple(seat for seat in range(self.players) if seat != self.giver)
        return any(self.computer(seat) for seat in guessers)

    def computer(self, seat: int) -> tuple[str, str] | None:
        """(level, language) of the computer player in `seat`; None for a person."""
        entry = self.computers[seat] if seat < len(self.computers) else ""
        if not entry:
            return None
        level, _, lang = entry.partition(":")
        return level, lang


def computer_entry(level: str, lang: str) -> str:
    """A computer player as NewGame's `computers` names it."""
    return f"{level}:{lang}"


def regular_rounds(players: int) -> int:
    """Everyone gives the cue twice with 3 to 6 players, once with 7 to 10."""
    return 2 * players if players <= 6 else players


def current_player(state: GameState) -> int | None:
    """Who acts now: the giver while choosing and cluing, the next guesser while guessing,
    nobody between rounds (any press moves on) or once the game is over."""
    if state.phase in ("choose_target", "clue1", "clue2"):
        return state.giver
    if state.phase in ("guess1", "guess2"):
        return state.to_place[0]
    return None


def is_terminal(state: GameState) -> bool:
    return state.phase == "game_over"


@lru_cache(maxsize=None)
def _every_place(player: int) -> tuple[Place, ...]:
    """A Place on each cell for `player`, made once: actions are immutable, so the lists that
    `legal_actions` returns may share them (building 480 frozen dataclasses a call was most of
    the time a random game took)."""
    return tuple(Place(c, player) for c in ALL_CELLS)


@lru_cache(maxsize=None)
def _every_target() -> tuple[ChooseTarget, ...]:
    return tuple(ChooseTarget(c) for c in ALL_CELLS)


def legal_actions(state: GameState | None) -> list[Action]:
    """Every action `apply` accepts now (a NewGame only before the game exists)."""
    if state is None:
        return [NewGame(players=n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
    phase = state.phase
    if phase == "choose_target":
        if state.variant == "cards":
            return [ChooseTarget(c) for c in state.card_cells] + [Redeal()]
        return list(_every_target())
    if phase == "clue1":
        return [Clue()]
    undo = [TakeBack()] if state.can_take_back else []
    if phase == "clue2":
        return [Clue(), SkipClue()] + undo
    if phase in ("guess1", "guess2"):
        taken = {p.cell for p in state.pawns}
        who = state.to_place[0]
        return [place for place in _every_place(who) if place.cell not in taken] + undo
    if phase == "round_over":
        return [Next()] + undo
    return []


# --- transitions ----------------------------------------------------------------------------


def apply(state: GameState | None, action: Action) -> GameState:
    """The state after `action`, or RuleError saying why it is not allowed now (a non-action or
    a field of the wrong type too)."""
    handler = _handler(state, action)
    if handler is None:
        return _new_game(action)
    return replace(handler(state, action), can_take_back=isinstance(action, Place))


def check(state: GameState | None, action: Action) -> None:
    """The RuleError `apply` would raise for `action`, without working out the state it makes: a
    phone's cursor asks at every tap whether a pawn could go there, and the last guesser's pawn
    would score the whole round each time."""
    handler = _handler(state, action)
    if handler is None:
        _new_game(action)
    elif handler is _place:
        _check_place(state, action.cell, action.player)
    else:
        handler(state, action)


def _handler(state: GameState | None, action: Action) -> Callable[[GameState, Action], GameState] | None:
    """What makes the state after `action` (None: a new game), once the action may come now."""
    _check_action(action)
    if state is not None and not isinstance(state, GameState):
        raise RuleError(f"{brief_repr(state)} is not a game state")
    if isinstance(action, NewGame):
        if state is not None:
            raise RuleError("a game is already under way: new_game only starts a record")
        return None
    if state is None:
        raise RuleError("no game yet: a record starts with new_game")
    if state.phase == "game_over":
        raise RuleError("the game is over")
    if isinstance(action, TakeBack):
        return _take_back
    handler = _HANDLERS.get((state.phase, type(action)))
    if handler is None:
        raise RuleError(f"{_action_name(action)} is not possible now: {_waiting_for(state)}")
    return handler


def replay(actions: Iterable[Action]) -> GameState:
    """A whole game from its record: a fold of `apply` over the actions."""
    state = reduce(apply, actions, None)
    if state is None:
        raise RuleError("the record is empty: it needs a new_game")
    return state


def _new_game(a: NewGame) -> GameState:
    if not MIN_PLAYERS <= a.players <= MAX_PLAYERS:
        raise RuleError(
            f"Hues and Cues is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {brief_repr(a.players)}")
    if not 0 <= a.first_giver < a.players:
        raise RuleError(
            f"first_giver must be a player from 0 to {a.players - 1}, not {brief_repr(a.first_giver)}")
    if a.variant not in VARIANTS:
        raise RuleError(f"variant must be 'cards' or 'free', not {brief_repr(a.variant)}")
    colors = DEFAULT_COLOR_NAMES[: a.players] if a.colors is None else tuple(a.colors)
    if len(colors) != a.players:
        raise RuleError(f"colors names {len(colors)} colours for {a.players} players")
    unknown = [c for c in colors if c not in DEFAULT_COLOR_NAMES]
    if unknown:
        raise RuleError(f"unknown pawn colour {brief_repr(unknown[0])} (choose from {', '.join(DEFAULT_COLOR_NAMES)})")
    if len(set(colors)) != len(colors):
        raise RuleError("two players have the same pawn colour")
    if a.computers and len(a.computers) != a.players:
        raise RuleError(f"computers names {len(a.computers)} seats for {a.players} players")
    for entry in a.computers:
        level, _, lang = entry.partition(":")
        if entry and (level not in COMPUTER_LEVELS or lang not in LANGUAGES):
            raise RuleError(f"computers: {brief_repr(entry)} is not \"\" (a person) or a computer player's "
                            f"level:language ({'/'.join(COMPUTER_LEVELS)}:{'/'.join(LANGUAGES)})")
    state = GameState(
        players=a.players,
        seed=a.seed,
        variant=a.variant,
        colors=colors,
        phase="choose_target",
        round=1,
        giver=a.first_giver,
        scores=(0,) * a.players,
        deck=shuffled(tuple(range(CARD_COUNT)), a.seed, 0) if a.variant == "cards" else (),
        computers=tuple(a.computers) if any(a.computers) else (),
    )
    return _draw_card(state)


def _draw_card(state: GameState) -> GameState:
    """Cards variant: the top card goes to the giver and straight onto the discards;
    an empty deck is first reshuffled from the discards."""
    if state.variant != "cards":
        return state
    deck, discards, reshuffles = state.deck, state.discards, state.reshuffles
    if not deck:
        reshuffles += 1
        deck, discards = shuffled(discards, state.seed, reshuffles), ()
    return replace(
        state, card=deck[0], deck=deck[1:], discards=discards + (deck[0],), reshuffles=reshuffles
    )


def _choose_target(state: GameState, a: ChooseTarget) -> GameState:
    if state.variant == "cards" and a.cell not in state.card_cells:
        raise RuleError(f"{a.cell} is not on this card ({', '.join(map(str, state.card_cells))})", "not_on_card",
                        cell=str(a.cell))
    return replace(state, target=a.cell, phase="clue1")


def _redeal(state: GameState, _: Redeal) -> GameState:
    if state.variant != "cards":
        raise RuleError("redeal is for the cards variant: in free there is no card to draw again")
    return _draw_card(state)


def _first_clue(state: GameState, a: Clue) -> GameState:
    return replace(state, phase="guess1", to_place=_guess_order(state, step=+1), clues=(_whole_clue(a),))


def _second_clue(state: GameState, a: Clue) -> GameState:
    return replace(state, phase="guess2", to_place=_guess_order(state, step=-1), clues=state.clues + (_whole_clue(a),))


def _whole_clue(a: Clue) -> Clue:
    """`a` once its fields agree: a written clue has words (none blank) of at most MAX_CLUE_TEXT
    and a language; a spoken one neither, and is never checked. Not the clue rules: those are the
    check's (game/clue.py), made before the action."""
    if not a.words:
        if a.lang is not None or a.checked:
            raise RuleError("clue: a spoken clue (no words) has no language and is not checked")
        return a
    if not all(word.strip() for word in a.words):
        raise RuleError("clue: a word of a written clue is blank")
    if sum(map(len, a.words)) > MAX_CLUE_TEXT:
        raise RuleError(f"clue: a written clue has at most {MAX_CLUE_TEXT} characters")
    if not a.lang:
        raise RuleError("clue: a written clue needs the language it was written in")
    return a


def _skip_clue(state: GameState, _: SkipClue) -> GameState:
    return _score(state)


def _place(state: GameState, a: Place) -> GameState:
    who = _check_place(state, a.cell, a.player)
    state = replace(state, pawns=state.pawns + (Pawn(who, a.cell),), to_place=state.to_place[1:])
    if state.to_place:
        return state
    return replace(state, phase="clue2") if state.phase == "guess1" else _score(state)


def _check_place(state: GameState, cell: Cell, player: int | None) -> int:
    """Whose pawn goes on `cell` (`player`'s, or the next guesser's when None), once it may."""
    who = state.to_place[0]
    if player is not None and player != who:
        raise RuleError(f"it is player {who}'s turn, not player {brief_repr(player)}'s", "not_your_turn", player=who)
    if state.occupied(cell):
        raise RuleError(f"{cell} already has a pawn", "occupied", cell=str(cell))
    return who


def _take_back(state: GameState, _: TakeBack) -> GameState:
    """Undo the place just before: the pawn leaves the board and its player is to place again;
    a guess phase it had completed reopens (and a round it had scored is unscored, its target
    still unseen: the panel reveals only after the next press)."""
    if not state.can_take_back:
        raise RuleError("take_back only follows a place: nothing to take back now")
    pawn = state.pawns[-1]
    back = replace(state, pawns=state.pawns[:-1], to_place=(pawn.player,) + state.to_place,
                   can_take_back=False)
    if state.phase == "clue2":
        return replace(back, phase="guess1")
    if state.phase == "round_over":
        return replace(back, phase="guess2", last_round_points=(),
                       scores=tuple(s - p for s, p in zip(state.scores, state.last_round_points)))
    return back


def _next(state: GameState, _: Next) -> GameState:
    """Start the next regular round, or settle the game: a sole leader wins, a tie among some
    players starts a tie-break round, a tie among everyone ends with joint winners."""
    if not state.tied and state.round < regular_rounds(state.players):
        return _start_round(state, giver=(state.giver + 1) % state.players, tied=())
    top = max(state.scores)
    leaders = tuple(p for p, s in enumerate(state.scores) if s == top)
    if len(leaders) == 1 or len(leaders) == state.players:
        return replace(state, phase="game_over", winners=leaders, to_place=())
    giver = next(
        g for g in ((state.giver + k) % state.players for k in range(1, state.players + 1))
        if g not in leaders
    )
    return _start_round(state, giver=giver, tied=leaders)


def _start_round(state: GameState, giver: int, tied: tuple[int, ...]) -> GameState:
    fresh = replace(
        state, phase="choose_target", round=state.round + 1, giver=giver, tied=tied,
        card=None, target=None, pawns=(), to_place=(), last_round_points=(), clues=(), said=state.said + state.clues,
    )
    return _draw_card(fresh)


def _score(state: GameState) -> GameState:
    points = round_points(state.players, state.giver, state.target, state.pawns, tiebreak=state.tiebreak)
    return replace(
        state,
        phase="round_over",
        to_place=(),
        last_round_points=points,
        scores=tuple(s + p for s, p in zip(state.scores, points)),
    )


_HANDLERS = {
    ("choose_target", ChooseTarget): _choose_target,
    ("choose_target", Redeal): _redeal,
    ("clue1", Clue): _first_clue,
    ("guess1", Place): _place,
    ("clue2", Clue): _second_clue,
    ("clue2", SkipClue): _skip_clue,
    ("guess2", Place): _place,
    ("round_over", Next): _next,
}


# --- pure helpers ---------------------------------------------------------------------------


def pawn_points(pawn_cell: Cell, target: Cell) -> int:
    """3 on the target, 2 inside the 3x3 frame, 1 touching its outside (diagonals too)."""
    return {0: 3, 1: 2, 2: 1}.get(distance(pawn_cell, target), 0)


def round_points(
    players: int, giver: int, target: Cell, pawns: tuple[Pawn, ...], tiebreak: bool
) -> tuple[int, ...]:
    """Each player's points for one round. The giver earns 1 per pawn inside the frame (2 in a
    3-player game), nothing in a tie-break round."""
    points = [0] * players
    in_frame = 0
    for pawn in pawns:
        points[pawn.player] += pawn_points(pawn.cell, target)
        in_frame += distance(pawn.cell, target) <= 1
    if not tiebreak:
        points[giver] += in_frame * (2 if players == 3 else 1)
    return tuple(points)


def _guess_order(state: GameState, step: int) -> tuple[int, ...]:
    """Clockwise from the giver's left (step +1) or counter-clockwise from the giver's right
    (step -1), skipping the giver and, in a tie-break, everyone not tied."""
    n = state.players
    order = ((state.giver + step * k) % n for k in range(1, n))
    return tuple(p for p in order if not state.tied or p in state.tied)


ACTION_NAMES = {
    NewGame: "new_game", ChooseTarget: "choose_target", Redeal: "redeal", Clue: "clue", Place: "place",
    TakeBack: "take_back", SkipClue: "skip_clue", Next: "next",
}


_NONE = type(None)
FIELD_TYPES: dict[type, dict[str, tuple[type, ...]]] = {
    # exact types: True is not a player, and a cell is a Cell (which is always on the board)
    NewGame: {"players": (int,), "seed": (int,), "first_giver": (int,), "variant": (str,),
              "colors": (tuple, list, _NONE), "computers": (tuple, list)},
    ChooseTarget: {"cell": (Cell,)},
    Place: {"cell": (Cell,), "player": (int, _NONE)},
    Clue: {"words": (tuple,), "lang": (str, _NONE), "checked": (bool,)},
}
_KIND_NAMES = {int: "a whole number", str: "text", Cell: "a Cell", bool: "true or false", _NONE: "None"}
LIST_NAMES = {"colors": "a list of colour names", "words": "a list of words",
              "computers": "a list of \"\" (a person) or level:language for each seat"}


def _check_action(action: object) -> None:
    """A RuleError for anything `apply` cannot take: not an action, or a field of the wrong type."""
    if type(action) not in ACTION_NAMES:
        raise RuleError(f"{brief_repr(action)} is not a game action")
    for field, kinds in FIELD_TYPES.get(type(action), {}).items():
        value = getattr(action, field)
        if type(value) not in kinds or (
                type(value) in (tuple, list) and not all(type(v) is str for v in value)):
            wanted = " or ".join(dict.fromkeys(LIST_NAMES[field] if k in (tuple, list) else _KIND_NAMES[k]
                                               for k in kinds))
            raise RuleError(f"{_action_name(action)}: {field} must be {wanted}, not {brief_repr(value)}")


def _action_name(action: Action) -> str:
    return ACTION_NAMES[type(action)]


def _waiting_for(state: GameState) -> str:
    who = current_player(state)
    return {
        "choose_target": f"player {who} (the cue giver) is choosing the target",
        "clue1": f"waiting for player {who}'s first clue",
        "guess1": f"it is player {who}'s turn to place a pawn",
        "clue2": f"waiting for player {who}'s second clue or pass",
        "guess2": f"it is player {who}'s turn to place a pawn",
        "round_over": "the round is scored: next starts the next round",
    }[state.phase]
