"""The console's state beside the game: what the panel shows (the screen, the cursor, the menus)
and who sits where (`seating`), which the controller and the handler keep and the renderer draws.

Nothing here is part of the game record: a cursor position or an open menu may be lost in a
power cut; the game itself never is (the seats and the secret's binding are kept in the store
as settings). The screens, in the order a party meets them:

- `idle`: the board slowly animating (and the last winners); Start opens set-up, B brightness.
- `resume`: an unfinished game was found at start: resume (default) or start a new one.
- `setup`: number of players, how many of them computer players (their level and the language
  they write clues in), variant, who gives the first cue, confirm.
- `handoff`: "pass to <giver>, others look away" before the secret target is chosen.
- `secret`: the giver chooses the target (the card's cells blink, the rest dims); only while
  the round's secret is the panel's (`PANEL`): a giver on a phone chooses there.
- `play`: clue and guessing phases; the rules state's phase says which. A clue written on the
  giver's phone opens it on the clue's words for `clue_screen` seconds, before anyone places a
  pawn; any press, a phone's tap on the board, skips them.
- `reveal`: the round was scored: frame, target, the round's written clues (if it had any:
  `reveal_clues`), round points, scoreboard, in that order.
- `tiebreak`: tie-break rounds are about to start (the tied players shown).
- `game_over`: the winner's colour in celebration.
- `brightness`: a small menu to turn the panel up or down.
- `host`: holding Start during a game: continue, new game, brightness, the clue check (the house
  rule: written clues held to the clue rules or not), the computer players' pace, power off.
- `confirm`: NO / YES before a new game or power off from the host menu, or before the
  simulator quits mid-game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from console.game.board import Cell
from console.game.rules import DEFAULT_COLOR_NAMES, Pawn
from console.game.seating import PANEL, Seating

SCREENS = (
    "idle", "resume", "setup", "handoff", "secret", "play", "reveal", "tiebreak", "game_over",
    "brightness", "host", "confirm",
)
MENU_SCREENS = ("host", "confirm", "brightness")
HOST_MENU = ("continue", "new_game", "brightness", "clue_check", "pace", "power_off")  # the host menu, in order
HOST_ITEMS = HOST_MENU + ("quit",)  # what a confirm screen may be asking about
SETUP_ITEMS = ("players", "computers", "level", "lang", "variant", "first_giver", "start")
CENTRE = Cell(7, 14)

# Reveal timeline, in seconds after the round is scored (A skips to the next stage).
# From 0 s the scoring frame flashes around the target and the target blinks, then:
REVEAL_POINTS_S = 3.0  # each player's points for the round
REVEAL_SCORES_S = 6.0  # the scoreboard, paged every SCOREBOARD_PAGE_S when it does not fit
SCOREBOARD_PAGE_S = 2.5
HANDOFF_ARM_S = 3.0  # the hand-off's second A must follow the first within this long


@dataclass(frozen=True)
class SetupChoices:
    players: int = 4
    variant: str = "cards"
    first_giver: int | None = None  # None: chosen at random when the game starts
    computers: int = 0  # computer players among them, in the last seats (at least one seat a person's)
    level: str = "expert"  # the computer players' (rules.COMPUTER_LEVELS)
    lang: str = "en"  # the language the computer players write their clues in
    item: int = 0  # index into SETUP_ITEMS


@dataclass(frozen=True)
class Cursor:
    """A cursor on the board: whose (their pawn colour) and where. The panel's own cursor is the
    acting player's; a phone player's (the web companion) is drawn the same way."""

    color: str
    cell: Cell


@dataclass(frozen=True)
class Ui:
    screen: str = "idle"
    since: float = 0.0  # when this screen (or reveal stage skip) started, on the app's clock
    cursor: Cell = CENTRE
    card_choice: int = 0  # which of the card's 4 cells the giver is on
    armed_at: float = -1.0  # the hand-off's first A (the second opens the secret choice)
    choice: int = 0  # a two-way menu: resume (0) / new (1); second clue (0) / pass (1)
    setup: SetupChoices = field(default_factory=SetupChoices)
    pending: Pawn | None = None  # placed (and stored) just now: B takes it back until the next press
    remote_cursors: tuple[Cursor, ...] = ()  # more cursors beside the panel's (`palette --legibility`: one on every cell)
    refused: Cell | None = None  # an occupied cell the player tried: a visible "no"
    refused_at: float = -1.0
    brightness: float = 1.0  # the ceiling the host set (the limiter may still lower it)
    last_winners: tuple[str, ...] = ()  # colours of the last game's winners, for the idle screen
    store_online: bool = True
    receiver_answers: bool = True  # a network driver's matrix answers (hal/drivers/network.py)
    disk_full: bool = False  # the journal cannot be written: a move is only taken if Redis takes it
    hold_progress: float = 0.0  # 0..1 while the shutdown button is held
    colors: tuple[str, ...] = DEFAULT_COLOR_NAMES  # the configured pawn colours, in seat order
    menu_item: int = 0  # the host menu's item (HOST_ITEMS index), also what a confirm asks about
    menu_return: tuple[str, float] | None = None  # the game screen (and its start) a menu returns to
    store_keeps: bool = True  # False for memory://, which keeps nothing once the console exits
    room_code: str = ""  # the code phones type to join, shown on the idle board and set-up
    seating: Seating = Seating()  # who holds each seat and the round's secret (game/seating.py)
    clue_check: bool = True  # written clues are held to the clue rules (the host's house-rule switch)
    fast_computers: bool = False  # the host asked the computer players to play quicker than a person
    clue_screen: float = 0.0  # seconds of pages the play screen shows the written clue's words in, from `since`
    reveal_clues: float = 0.0  # seconds the reveal shows the round's written clues, after the frame

    def with_cursor(self, cell: Cell) -> Ui:
        """This Ui with the guesser's cursor on `cell`, no refusal shown and the board shown (a
        clue's words give way): what every cursor move makes (a joystick's press, a phone's tap)."""
        return replace(self, cursor=cell, refused=None, clue_screen=0.0)

    def giver_on_phone(self, game) -> bool:
        """The round was dealt to a player away from the panel: its giver chooses the target
        there, and the panel never opens the card."""
        return game is not None and self.seating.secret not in (None, PANEL)

    def handoff_armed(self, t: float) -> bool:
        """The hand-off has had its first A and waits for the second."""
        return 0 <= self.armed_at <= t and t - self.armed_at <= HANDOFF_ARM_S

    def shows_clue(self, t: float) -> bool:
        """The play screen shows the written clue's words at time t (not the board)."""
        return self.screen == "play" and self.clue_screen > 0 and self.since <= t < self.clue_ends()

    def clue_ends(self) -> float:
        """When the board comes back after a written clue's words: its pages shown, on the next
        whole second of the app's clock, where the pawns' beat lights them (render.PAWN_S), so
        its return is a change the board makes anyway, not a wake-up more."""
        return float(math.ceil(self.since + self.clue_screen))

    def reveal_stage(self, t: float) -> str:
        """`frame`, `clues`, `points` or `scores`: where the reveal animation is at time t."""
        elapsed = t - self.since
        if elapsed >= self.reveal_at("scores"):
            return "scores"
        if elapsed >= self.reveal_at("points"):
            return "points"
        if elapsed >= self.reveal_at("clues"):
            return "clues"
        return "frame"

    def reveal_at(self, stage: str) -> float:
        """Seconds into the reveal at which `stage` starts; the clues' last only when the round had
        written ones (else they start with the points and last nothing)."""
        clues = self.reveal_clues
        return {"frame": 0.0, "clues": REVEAL_POINTS_S, "points": REVEAL_POINTS_S + clues,
                "scores": REVEAL_SCORES_S + clues}[stage]
