"""The joystick's buttons, screen by screen: its menus, and the intents of the player at the box.

`handle(game, ui, button, t, rng)` is a function, not an object with hidden state. It keeps the
panel's own screens (set-up, the menus, the hand-off, the card's cells, the cursor, the reveal's
stages) and turns a press that is a move into the same intent a phone or a computer player makes
for it (`intents`), done by the one handler (`table.act`) for the seat the press acts for. The
joystick plays the seats nobody else holds: a move for another's seat changes nothing. It never
produces an illegal action: an occupied cell shows a "no" instead.

A pawn placed stays pending until the next press: B takes it back, any other press lets it stand
(and, while guessing goes on, also counts as the next player's first press); the reveal after the
last pawn waits for that press. While a clue typed on a phone fills the panel, a press only brings
the board back: it lands on nothing the guesser has not seen.
"""

from __future__ import annotations

import random
from dataclasses import replace

from console.game import rules
from console.game.board import COLS, ROWS, Cell, RuleError
from console.game.clue import LANGUAGES
from console.game.rules import GameState
from console.game.seating import PANEL
from console.play import intents
from console.play.intents import Intent
from console.play.table import GUESS_PHASES, Step, act, let_stand, screen_for, to
from console.view.ui import (
    HOST_ITEMS, HOST_MENU, MENU_SCREENS, SETUP_ITEMS, SetupChoices, Ui,
)

MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
GRACE_S = 0.4  # presses this soon after a screen changed by itself are ignored
HOST_MENU_HOLD_S = 1.5  # holding Start this long during a game opens the host menu


def handle(game: GameState | None, ui: Ui, button: str, t: float, rng: random.Random) -> Step:
    """One press (or auto-repeat) of `button` on the joystick at time t. `rng` picks a random
    first cue giver and the deck's seed."""
    read = intent_of(game, ui, button, t)
    if isinstance(read, Step):
        return read
    seat, intent = read
    try:
        return act(game, ui, intents.joystick(seat), intent, t, rng)
    except RuleError as refused:
        if refused.key == "occupied":  # a visible "no" on the cell; the press let a pending pawn stand
            return Step(game, replace(ui, pending=None, refused=ui.cursor, refused_at=t))
        return Step(game, ui)  # not the joystick's to do: another player holds that seat


def intent_of(game: GameState | None, ui: Ui, button: str, t: float) -> tuple[int | None, Intent] | Step:
    """What a press means on the screen shown: (the seat it acts for, the intent) for a move,
    else the step of the panel's own screens."""
    handler = _SCREEN_HANDLERS.get(ui.screen)
    if handler is None:
        raise ValueError(f"unknown screen {ui.screen!r}")
    return handler(game, ui, button, t)


def _tiebreak(game: GameState, ui: Ui, button: str, t: float):
    return (None, intents.Next()) if button == "a" else Step(game, ui)


def _game_over(game: GameState, ui: Ui, button: str, t: float) -> Step:
    return Step(game, to_idle(game, ui, t)) if button in ("a", "start") else Step(game, ui)


# Screens that fall back to the idle board when nobody touches the controls for a while; a game
# under way (or waiting to be resumed) stays on screen however long the table talks.
IDLE_AFTER_TIMEOUT = ("setup", "brightness", "game_over")


def screen_key(ui: Ui, t: float) -> tuple[str, str]:
    """What the panel is showing, as far as a press could land on the wrong thing: the screen,
    and the stage that moves on by itself (the reveal's, a written clue's words giving way to the
    board)."""
    if ui.screen == "reveal":
        return ui.screen, ui.reveal_stage(t)
    return ui.screen, "clue" if ui.shows_clue(t) else ""


def host_menu_opens(game: GameState | None, ui: Ui) -> bool:
    """A Start hold opens the host menu over a game under way (not over a menu of its own)."""
    return game is not None and not rules.is_terminal(game) and ui.screen not in MENU_SCREENS


def open_host_menu(ui: Ui, t: float) -> Ui:
    return to(ui, "host", t, menu_item=0, menu_return=(ui.screen, ui.since))


def open_quit(ui: Ui, t: float) -> Ui:
    """The simulator's quit, asked first while a game is under way; "no" goes back to the game
    (from a menu over it, to the game screen under the menu)."""
    back = ui.menu_return if ui.menu_return is not None else (ui.screen, ui.since)
    return to(ui, "confirm", t, menu_item=HOST_ITEMS.index("quit"), menu_return=back)


def to_idle(game: GameState | None, ui: Ui, t: float) -> Ui:
    """The idle board, showing the winners of the game just over (if it was)."""
    winners = ui.last_winners
    if game is not None and rules.is_terminal(game):
        winners = tuple(game.colors[w] for w in game.winners)
    return to(ui, "idle", t, last_winners=winners)


# --- screens --------------------------------------------------------------------------------


def _idle(game, ui: Ui, button: str, t: float) -> Step:
    if button in ("start", "a"):
        return Step(game, to(ui, "setup", t, setup=replace(ui.setup, item=0)))
    if button == "b":
        return Step(game, to(ui, "brightness", t))
    return Step(game, ui)


def _brightness(game, ui: Ui, button: str, t: float):
    if button in ("up", "right"):
        return None, intents.Brightness(+1)
    if button in ("down", "left"):
        return None, intents.Brightness(-1)
    if button in ("a", "b", "start"):
        if ui.menu_return is not None:  # opened from the host menu: back to it
            return Step(game, to(ui, "host", t, menu_item=HOST_ITEMS.index("brightness"), menu_return=ui.menu_return))
        return Step(game, to(ui, "idle", t))
    return Step(game, ui)


def _back_to_game(game: GameState, ui: Ui, t: float) -> Step:
    screen, since = ui.menu_return
    return Step(game, replace(to(ui, screen, t, menu_return=None), since=since))


def _host(game: GameState, ui: Ui, button: str, t: float):
    """Continue, a new game, brightness, the clue check (A switches it) or power off; the
    destructive two ask first."""
    if button in ("up", "left"):
        return Step(game, replace(ui, menu_item=max(0, ui.menu_item - 1)))
    if button in ("down", "right"):
        return Step(game, replace(ui, menu_item=min(len(HOST_MENU) - 1, ui.menu_item + 1)))
    if button == "b":
        return _back_to_game(game, ui, t)
    if button != "a":
        return Step(game, ui)
    item = HOST_MENU[ui.menu_item]
    if item == "continue":
        return _back_to_game(game, ui, t)
    if item == "clue_check":
        return None, intents.ClueCheck(not ui.clue_check)
    if item == "pace":
        return None, intents.ComputerPace(not ui.fast_computers)
    if item == "brightness":
        return Step(game, to(ui, "brightness", t, menu_return=ui.menu_return))
    return Step(game, to(ui, "confirm", t, menu_item=ui.menu_item, menu_return=ui.menu_return))


def _confirm(game: GameState, ui: Ui, button: str, t: float):
    """NO (the default) or YES for a new game, power off or quit; B says no."""
    if button in MOVES:
        return Step(game, replace(ui, choice=1 - ui.choice))
    if button == "b" or (button == "a" and ui.choice == 0):
        if HOST_ITEMS[ui.menu_item] == "quit":
            return _back_to_game(game, ui, t)
        return Step(game, to(ui, "host", t, menu_item=ui.menu_item, menu_return=ui.menu_return))
    if button != "a":
        return Step(game, ui)
    if HOST_ITEMS[ui.menu_item] == "new_game":
        return None, intents.Abandon()
    return Step(game, ui, stop=True)


def _resume(game: GameState, ui: Ui, button: str, t: float):
    if button in MOVES:
        return Step(game, replace(ui, choice=1 - ui.choice))
    if button != "a":
        return Step(game, ui)
    if ui.choice == 1:  # a new game instead: the stored one is kept as abandoned
        return None, intents.Abandon()
    resumed = screen_for(game, ui, t)
    if resumed.screen == "reveal":  # straight to the scoreboard: the reveal was seen already
        resumed = replace(resumed, since=t - resumed.reveal_at("scores"))
    return Step(game, resumed)


def _setup(game, ui: Ui, button: str, t: float):
    s = ui.setup
    item = SETUP_ITEMS[s.item]
    if button == "up":
        return Step(game, replace(ui, setup=replace(s, item=_setup_item(s, -1))))
    if button == "down":
        return Step(game, replace(ui, setup=replace(s, item=_setup_item(s, +1))))
    if button in ("left", "right"):
        return Step(game, replace(ui, setup=_change_setting(s, item, 1 if button == "right" else -1)))
    if button == "b":
        if s.item == 0:
            return Step(game, to(ui, "idle", t))
        return Step(game, replace(ui, setup=replace(s, item=_setup_item(s, -1))))
    if button == "a" and item != "start":
        return Step(game, replace(ui, setup=replace(s, item=_setup_item(s, +1))))
    if button in ("a", "start"):
        return None, intents.NewGame(players=s.players, variant=s.variant, first_giver=s.first_giver,
                                     computers=s.computers, level=s.level, lang=s.lang)
    return Step(game, ui)


COMPUTER_ITEMS = ("level", "lang")  # set-up's items for the computer players: only when there are some


def _setup_item(s: SetupChoices, step: int) -> int:
    """The set-up item one `step` on from the one shown (the computer players' own only when
    there are some), at the ends the same."""
    item = s.item + step
    while 0 <= item < len(SETUP_ITEMS) and s.computers == 0 and SETUP_ITEMS[item] in COMPUTER_ITEMS:
        item += step
    return item if 0 <= item < len(SETUP_ITEMS) else s.item


def _change_setting(s: SetupChoices, item: str, delta: int) -> SetupChoices:
    if item == "players":
        players = min(rules.MAX_PLAYERS, max(rules.MIN_PLAYERS, s.players + delta))
        giver = s.first_giver if s.first_giver is None or s.first_giver < players else players - 1
        return replace(s, players=players, first_giver=giver, computers=min(s.computers, players - 1))
    if item == "computers":  # at least one seat stays a person's
        return replace(s, computers=min(s.players - 1, max(0, s.computers + delta)))
    if item == "level":
        return replace(s, level=_cycled(rules.COMPUTER_LEVELS, s.level, delta))
    if item == "lang":
        return replace(s, lang=_cycled(LANGUAGES, s.lang, delta))
    if item == "variant":
        return replace(s, variant=_cycled(rules.VARIANTS, s.variant, delta))
    if item == "first_giver":
        options = [None, *range(s.players)]
        return replace(s, first_giver=options[(options.index(s.first_giver) + delta) % len(options)])
    return s


def _cycled(options: tuple[str, ...], value: str, delta: int) -> str:
    return options[(options.index(value) + delta) % len(options)]


def _handoff(game: GameState, ui: Ui, button: str, t: float) -> Step:
    """The secret opens on a second A soon after the first: one stray press shows nothing. Only
    a round dealt to the panel opens here: one dealt to a phone is chosen on that phone, and the
    panel never shows its card."""
    if ui.seating.secret != PANEL:
        return Step(game, ui)
    if button != "a":
        return Step(game, replace(ui, armed_at=-1.0))
    if ui.handoff_armed(t):
        return Step(game, to(ui, "secret", t, card_choice=0))
    return Step(game, replace(ui, armed_at=t))


def card_step(cells: tuple[Cell, ...], index: int, button: str) -> int:
    """The card cell the joystick goes to from cells[index]: the nearest one in the pressed
    direction, one within 45 degrees of it first; the same cell when none lies that way."""
    dr, dc = MOVES[button]
    here = cells[index]
    best, best_key = index, None
    for i, cell in enumerate(cells):
        along = (cell.row - here.row) * dr + (cell.col - here.col) * dc
        if along <= 0:
            continue
        across = abs((cell.row - here.row) * dc) + abs((cell.col - here.col) * dr)
        key = (across > along, along * along + across * across)
        if best_key is None or key < best_key:
            best, best_key = i, key
    return best


def _secret(game: GameState, ui: Ui, button: str, t: float):
    if button == "b":
        return Step(game, to(ui, "handoff", t))
    if game.variant == "cards":
        if button in MOVES:
            return Step(game, replace(ui, card_choice=card_step(game.card_cells, ui.card_choice, button)))
        target = game.card_cells[ui.card_choice]
    else:
        if button in MOVES:
            return Step(game, replace(ui, cursor=_moved(ui.cursor, button)))
        target = ui.cursor
    if button != "a":
        return Step(game, ui)
    return game.giver, intents.ChooseTarget(target)


def _play(game: GameState, ui: Ui, button: str, t: float):
    if ui.shows_clue(t):  # a written clue's words fill the panel: a press brings the board back first
        return Step(game, replace(ui, clue_screen=0.0))
    if ui.pending is not None and button == "b":
        return ui.pending.player, intents.TakeBack()
    turn = rules.current_player(game)
    if turn is not None and ui.seating.holder(turn) != PANEL:
        return Step(game, ui)  # another player's clue or guess: not the joystick's
    phase = game.phase
    if ui.pending is not None and phase not in GUESS_PHASES:
        return let_stand(game, ui, t)  # the press that reveals the target, or hands over to the giver, is used up
    if phase == "clue1":
        return (turn, intents.GiveClue()) if button == "a" else Step(game, ui)
    if phase == "clue2":
        if button in MOVES:
            return Step(game, replace(ui, choice=1 - ui.choice))
        if button == "a":
            return turn, intents.GiveClue() if ui.choice == 0 else intents.Pass()
        return Step(game, ui)
    if button == "a":
        return turn, intents.Place(ui.cursor)
    ui = replace(ui, pending=None)  # any other press lets a pending pawn stand
    if button in MOVES:
        return Step(game, ui.with_cursor(_moved(ui.cursor, button)))
    return Step(game, ui)


def _reveal(game: GameState, ui: Ui, button: str, t: float):
    if button != "a":
        return Step(game, ui)
    stage = ui.reveal_stage(t)
    if stage == "scores":
        return None, intents.Next()
    following = _REVEAL_NEXT[stage] if stage != "frame" or ui.reveal_clues else "points"
    return Step(game, replace(ui, since=t - ui.reveal_at(following)))


_REVEAL_NEXT = {"frame": "clues", "clues": "points", "points": "scores"}  # what A skips to


def _moved(cell: Cell, button: str) -> Cell:
    dr, dc = MOVES[button]
    return Cell(min(ROWS - 1, max(0, cell.row + dr)), min(COLS - 1, max(0, cell.col + dc)))


# What a press does, screen by screen.
_SCREEN_HANDLERS = {
    "idle": _idle, "brightness": _brightness, "host": _host, "confirm": _confirm, "resume": _resume,
    "setup": _setup, "handoff": _handoff, "secret": _secret, "play": _play, "reveal": _reveal,
    "tiebreak": _tiebreak, "game_over": _game_over,
}
