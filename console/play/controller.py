"""Button presses to game actions, screen by screen.

`handle(game, ui, button, t, rng)` is a function, not an object with hidden state: it returns the
new game state, the new UI state, and the game actions it applied (in order), which the app
appends to the store before anything is drawn. The controller never produces an illegal action;
it checks what the rules would refuse (an occupied cell) and shows a "no" instead.

A guess goes into the record the moment A places it, so a power cut never loses a pawn the panel
showed. Until the next press it stays *pending* on the panel: B takes it back (a `take_back` in
the record), any other press lets it stand (and, while guessing goes on, also counts as the next
player's first press). The reveal after the last pawn waits for that press.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import NamedTuple

from console.game import rules
from console.game.board import COLS, ROWS, Cell
from console.game.rules import Action, ChooseTarget, Clue, GameState, NewGame, Next, Pawn, Place, SkipClue, TakeBack
from console.play.secret import dealt
from console.view.ui import (
    CENTRE, HOST_ITEMS, HOST_MENU, MENU_SCREENS, PANEL, REVEAL_POINTS_S, REVEAL_SCORES_S, SETUP_ITEMS,
    SetupChoices, Ui,
)

MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
BRIGHTNESS_STEP = 0.1
MIN_BRIGHTNESS = 0.2  # below this the 8-bit drive merges dark board cells


GRACE_S = 0.4  # presses this soon after a screen changed by itself are ignored
HOST_MENU_HOLD_S = 1.5  # holding Start this long during a game opens the host menu


class Step(NamedTuple):
    """What an input does: the game and UI it leads to, and the actions to store first. (A
    tuple: one is made at every press and tap, where a frozen dataclass set each field through
    object.__setattr__.)"""

    game: GameState | None
    ui: Ui
    actions: tuple[Action, ...] = ()
    abandon: bool = False  # the host chose a new game over the stored one (resume or host menu)
    stop: bool = False  # the host chose to power off (host menu) or to quit (the simulator)


def handle(
    game: GameState | None,
    ui: Ui,
    button: str,
    t: float,
    rng: random.Random,
) -> Step:
    """One press (or auto-repeat) of `button` on the joystick at time t. `rng` picks a random
    first cue giver and the deck's seed. The joystick does not act for a seat a phone holds."""
    if _for_a_phone(game, ui, button):
        return Step(game, ui)
    return press(game, ui, button, t, rng)


def press(game: GameState | None, ui: Ui, button: str, t: float, rng: random.Random) -> Step:
    """What a press of `button` does on the screen shown, whoever makes it: the joystick
    (`handle`), or a phone's request for its own seat (play.remote)."""
    if ui.screen == "setup":
        return _setup(game, ui, button, t, rng)
    screen_handler = _SCREEN_HANDLERS.get(ui.screen)
    if screen_handler is not None:
        return screen_handler(game, ui, button, t)
    raise ValueError(f"unknown screen {ui.screen!r}")


def _for_a_phone(game: GameState | None, ui: Ui, button: str) -> bool:
    """Whether the press would act for a seat a phone holds: the clue or guess of a player whose
    turn it is, or B on their pending pawn (its phone takes it back). The secret screen opens
    only for a round dealt to the panel (`_handoff`)."""
    if ui.screen != "play" or game is None:
        return False
    phones = ui.phone_seats
    return rules.current_player(game) in phones or (button == "b" and ui.pending is not None
                                                    and ui.pending.player in phones)


def _tiebreak(game: GameState, ui: Ui, button: str, t: float) -> Step:
    return Step(game, _to(ui, "handoff", t)) if button == "a" else Step(game, ui)


def _game_over(game: GameState, ui: Ui, button: str, t: float) -> Step:
    return Step(game, to_idle(game, ui, t)) if button in ("a", "start") else Step(game, ui)


# Screens that fall back to the idle board when nobody touches the controls for a while; a game
# under way (or waiting to be resumed) stays on screen however long the table talks.
IDLE_AFTER_TIMEOUT = ("setup", "brightness", "game_over")


def screen_key(ui: Ui, t: float) -> tuple[str, str]:
    """What the panel is showing, as far as a press could land on the wrong thing: the screen,
    and the reveal's stage (which moves on by itself)."""
    return ui.screen, ui.reveal_stage(t) if ui.screen == "reveal" else ""


def host_menu_opens(game: GameState | None, ui: Ui) -> bool:
    """A Start hold opens the host menu over a game under way (not over a menu of its own)."""
    return game is not None and not rules.is_terminal(game) and ui.screen not in MENU_SCREENS


def open_host_menu(ui: Ui, t: float) -> Ui:
    return _to(ui, "host", t, menu_item=0, menu_return=(ui.screen, ui.since))


def open_quit(ui: Ui, t: float) -> Ui:
    """The simulator's quit, asked first while a game is under way; "no" goes back to the game
    (from a menu over it, to the game screen under the menu)."""
    back = ui.menu_return if ui.menu_return is not None else (ui.screen, ui.since)
    return _to(ui, "confirm", t, menu_item=HOST_ITEMS.index("quit"), menu_return=back)


def to_idle(game: GameState | None, ui: Ui, t: float) -> Ui:
    """The idle board, showing the winners of the game just over (if it was)."""
    winners = ui.last_winners
    if game is not None and rules.is_terminal(game):
        winners = tuple(game.colors[w] for w in game.winners)
    return _to(ui, "idle", t, last_winners=winners)


def screen_for(game: GameState, ui: Ui, t: float) -> Ui:
    """The screen that shows `game` as it now stands: used after each action and on resume."""
    phase = game.phase
    if phase == "choose_target":
        return _to(ui, "handoff", t)
    if phase == "round_over":
        return _to(ui, "reveal", t)
    if phase == "game_over":
        return _to(ui, "game_over", t)
    return _to(ui, "play", t, choice=0)


# --- screens --------------------------------------------------------------------------------


def _idle(game, ui: Ui, button: str, t: float) -> Step:
    if button in ("start", "a"):
        return Step(game, _to(ui, "setup", t, setup=replace(ui.setup, item=0)))
    if button == "b":
        return Step(game, _to(ui, "brightness", t))
    return Step(game, ui)


def _brightness(game, ui: Ui, button: str, t: float) -> Step:
    if button in ("up", "right"):
        return Step(game, replace(ui, brightness=min(1.0, round(ui.brightness + BRIGHTNESS_STEP, 2))))
    if button in ("down", "left"):
        return Step(game, replace(ui, brightness=max(MIN_BRIGHTNESS, round(ui.brightness - BRIGHTNESS_STEP, 2))))
    if button in ("a", "b", "start"):
        if ui.menu_return is not None:  # opened from the host menu: back to it
            return Step(game, _to(ui, "host", t, menu_item=HOST_ITEMS.index("brightness"),
                                  menu_return=ui.menu_return))
        return Step(game, _to(ui, "idle", t))
    return Step(game, ui)


def _back_to_game(game: GameState, ui: Ui, t: float) -> Step:
    screen, since = ui.menu_return
    return Step(game, replace(_to(ui, screen, t, menu_return=None), since=since))


def _host(game: GameState, ui: Ui, button: str, t: float) -> Step:
    """Continue, a new game, brightness or power off; the destructive two ask first."""
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
    if item == "brightness":
        return Step(game, _to(ui, "brightness", t, menu_return=ui.menu_return))
    return Step(game, _to(ui, "confirm", t, menu_item=ui.menu_item, menu_return=ui.menu_return))


def _confirm(game: GameState, ui: Ui, button: str, t: float) -> Step:
    """NO (the default) or YES for a new game, power off or quit; B says no."""
    if button in MOVES:
        return Step(game, replace(ui, choice=1 - ui.choice))
    if button == "b" or (button == "a" and ui.choice == 0):
        if HOST_ITEMS[ui.menu_item] == "quit":
            return _back_to_game(game, ui, t)
        return Step(game, _to(ui, "host", t, menu_item=ui.menu_item, menu_return=ui.menu_return))
    if button != "a":
        return Step(game, ui)
    if HOST_ITEMS[ui.menu_item] == "new_game":
        return Step(None, _to(ui, "setup", t, setup=replace(ui.setup, item=0), menu_return=None,
                              pending=None), abandon=True)
    return Step(game, ui, stop=True)


def _resume(game: GameState, ui: Ui, button: str, t: float) -> Step:
    if button in MOVES:
        return Step(game, replace(ui, choice=1 - ui.choice))
    if button != "a":
        return Step(game, ui)
    if ui.choice == 0:
        resumed = screen_for(game, ui, t)
        if resumed.screen == "reveal":  # straight to the scoreboard: the reveal was seen already
            resumed = replace(resumed, since=t - REVEAL_SCORES_S)
        return Step(game, resumed)
    return Step(None, _to(ui, "setup", t, setup=replace(ui.setup, item=0)), abandon=True)


def _setup(game, ui: Ui, button: str, t: float, rng: random.Random) -> Step:
    s = ui.setup
    item = SETUP_ITEMS[s.item]
    if button == "up":
        return Step(game, replace(ui, setup=replace(s, item=max(0, s.item - 1))))
    if button == "down":
        return Step(game, replace(ui, setup=replace(s, item=min(len(SETUP_ITEMS) - 1, s.item + 1))))
    if button in ("left", "right"):
        return Step(game, replace(ui, setup=_change_setting(s, item, 1 if button == "right" else -1)))
    if button == "b":
        if s.item == 0:
            return Step(game, _to(ui, "idle", t))
        return Step(game, replace(ui, setup=replace(s, item=s.item - 1)))
    if button == "a" and item != "start":
        return Step(game, replace(ui, setup=replace(s, item=s.item + 1)))
    if button in ("a", "start"):
        return _start_game(ui, t, rng)
    return Step(game, ui)


def _change_setting(s: SetupChoices, item: str, delta: int) -> SetupChoices:
    if item == "players":
        players = min(rules.MAX_PLAYERS, max(rules.MIN_PLAYERS, s.players + delta))
        giver = s.first_giver if s.first_giver is None or s.first_giver < players else players - 1
        return replace(s, players=players, first_giver=giver)
    if item == "variant":
        variants = rules.VARIANTS
        return replace(s, variant=variants[(variants.index(s.variant) + delta) % len(variants)])
    if item == "first_giver":
        options = [None, *range(s.players)]
        return replace(s, first_giver=options[(options.index(s.first_giver) + delta) % len(options)])
    return s


def new_game_action(s: SetupChoices, rng: random.Random, colors: tuple[str, ...]) -> NewGame:
    """The new_game for the set-up choices: a random first giver when none was chosen, and a
    random seed for the deck (the only randomness, kept in the record from then on)."""
    giver = s.first_giver if s.first_giver is not None else rng.randrange(s.players)
    return NewGame(
        players=s.players, seed=rng.randrange(2**31), first_giver=giver, variant=s.variant,
        colors=tuple(colors[: s.players]),
    )


def _start_game(ui: Ui, t: float, rng: random.Random) -> Step:
    action = new_game_action(ui.setup, rng, ui.colors)
    game = rules.apply(None, action)
    return Step(game, dealt(game, _to(ui, "handoff", t, cursor=CENTRE, pending=None)), (action,))


def _handoff(game: GameState, ui: Ui, button: str, t: float) -> Step:
    """The secret opens on a second A soon after the first: one stray press shows nothing. Only
    a round dealt to the panel opens here: one dealt to a phone is chosen on that phone, and the
    panel never shows its card."""
    if ui.secret_holder != PANEL:
        return Step(game, ui)
    if button != "a":
        return Step(game, replace(ui, armed_at=-1.0))
    if ui.handoff_armed(t):
        return Step(game, _to(ui, "secret", t, card_choice=0))
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


def _secret(game: GameState, ui: Ui, button: str, t: float) -> Step:
    if button == "b":
        return Step(game, _to(ui, "handoff", t))
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
    return apply_action(game, replace(ui, cursor=CENTRE), t, ChooseTarget(target))


def _play(game: GameState, ui: Ui, button: str, t: float) -> Step:
    if ui.pending is not None:
        if button == "b":
            back = rules.apply(game, TakeBack())
            return Step(back, replace(ui, screen="play", cursor=ui.pending.cell, pending=None), (TakeBack(),))
        ui = replace(ui, pending=None)
        if game.phase == "round_over":
            return Step(game, screen_for(game, ui, t))  # the press that reveals the target is used up
        if game.phase not in ("guess1", "guess2"):
            return Step(game, ui)  # the press that hands over to the giver is used up
    phase = game.phase
    if phase == "clue1":
        return apply_action(game, ui, t, Clue()) if button == "a" else Step(game, ui)
    if phase == "clue2":
        if button in MOVES:
            return Step(game, replace(ui, choice=1 - ui.choice))
        if button == "a":
            return apply_action(game, ui, t, Clue() if ui.choice == 0 else SkipClue())
        return Step(game, ui)
    # guess1 / guess2
    if button in MOVES:
        return Step(game, ui.with_cursor(_moved(ui.cursor, button)))
    if button == "a":
        if game.occupied(ui.cursor):
            return Step(game, replace(ui, refused=ui.cursor, refused_at=t))
        return _place(game, ui, t)
    return Step(game, ui)


def _place(game: GameState, ui: Ui, t: float) -> Step:
    """The pawn goes into the record at once (a power cut keeps what the panel shows); the panel
    marks it as the one B takes back until the next press, and holds back the reveal until then."""
    pawn = Pawn(rules.current_player(game), ui.cursor)
    action = Place(pawn.cell, pawn.player)
    placed = rules.apply(game, action)
    shown = replace(ui, pending=pawn, refused=None)
    if placed.phase == "clue2":
        shown = replace(screen_for(placed, ui, t), pending=pawn)
    return Step(placed, shown, (action,))


def _reveal(game: GameState, ui: Ui, button: str, t: float) -> Step:
    if button != "a":
        return Step(game, ui)
    stage = ui.reveal_stage(t)
    if stage == "frame":
        return Step(game, replace(ui, since=t - REVEAL_POINTS_S))
    if stage == "points":
        return Step(game, replace(ui, since=t - REVEAL_SCORES_S))
    return apply_action(game, replace(ui, cursor=CENTRE), t, Next())


# --- helpers --------------------------------------------------------------------------------


def apply_action(game: GameState, ui: Ui, t: float, action: Action) -> Step:
    """Apply one game action (RuleError if the rules refuse it) and show the screen it leads to."""
    new = rules.apply(game, action)
    shown = screen_for(new, ui, t) if new.phase != game.phase or new.round != game.round else ui
    if new.phase == "choose_target" and new.tiebreak and not game.tiebreak:
        shown = _to(ui, "tiebreak", t)
    if isinstance(action, Next) and new.phase == "choose_target":
        shown = dealt(new, shown)  # the next round's secret: bound to the giver seat's occupant now
    return Step(new, shown, (action,))


def _to(ui: Ui, screen: str, t: float, **changes) -> Ui:
    return replace(ui, screen=screen, since=t, choice=changes.pop("choice", 0), refused=None, armed_at=-1.0,
                   **changes)


def _moved(cell: Cell, button: str) -> Cell:
    dr, dc = MOVES[button]
    return Cell(min(ROWS - 1, max(0, cell.row + dr)), min(COLS - 1, max(0, cell.col + dc)))


# What a press does, screen by screen (set-up also takes the random source: see `handle`).
_SCREEN_HANDLERS = {
    "idle": _idle, "brightness": _brightness, "host": _host, "confirm": _confirm, "resume": _resume,
    "handoff": _handoff, "secret": _secret, "play": _play, "reveal": _reveal,
    "tiebreak": _tiebreak, "game_over": _game_over,
}
