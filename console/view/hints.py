"""The panel's request in one line of words: what the terminal simulator's status line, the logs
and the browser's panel page say beside the picture. A pure function of the game and the UI
state, as the renderer is; the renderer draws, this names."""

from __future__ import annotations

from console.game.rules import GameState, current_player
from console.game.seating import is_computer
from console.view.ui import HOST_ITEMS, HOST_MENU, SETUP_ITEMS, Ui


def describe(state: GameState | None, ui: Ui) -> str:
    """What the panel asks for, in words: for the terminal simulator's status line and the logs."""
    text = _hint(state, ui)
    if not ui.store_online:
        text += " [the record store is offline: moves are kept and saved when it is back]"
    if ui.disk_full:
        text += " [the disk is full: a move is only taken while the record store can keep it]"
    if not ui.receiver_answers:
        text += " [the LED matrix does not answer: the game goes on, and the matrix shows it again once it is back]"
    return text


def player_name(state: GameState, player: int) -> str:
    """A player as the hints and captions name them: their pawn colour, capitalised, and
    "(computer)" after a computer player's."""
    return state.colors[player].capitalize() + (" (computer)" if state.computer(player) else "")


def player_names(state: GameState, players: tuple[int, ...]) -> str:
    """Players named in a sentence: "Red", "Red and Blue", "Red, Blue and Green"."""
    names = [player_name(state, p) for p in players]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _hint(state: GameState | None, ui: Ui) -> str:
    screen = ui.screen
    if screen == "idle":
        last = f" Last winner: {' and '.join(c.capitalize() for c in ui.last_winners)}." if ui.last_winners else ""
        return f"Press Start for a new game (B: brightness).{last}"
    if screen == "brightness":
        return f"Brightness {round(ui.brightness * 100)}% (up/down changes it, A or B goes back)"
    if screen == "resume":
        pick = "resume it" if ui.choice == 0 else "start a new one"
        return f"An unfinished game is waiting: {pick}? (left/right switches, A confirms)"
    if screen == "setup":
        return _setup_hint(ui)
    if screen == "host":
        item = HOST_MENU[ui.menu_item]
        what = {"clue_check": _CLUE_CHECK_HINTS[ui.clue_check], "pace": _PACE_HINTS[ui.fast_computers]}.get(
            item, _HOST_HINTS.get(item))
        return f"Host menu: {what} (up/down picks, A chooses, B goes back to the game)"
    if screen == "confirm":
        return _confirm_hint(ui)
    giver = player_name(state, state.giver)
    if screen == "handoff":
        if is_computer(ui.seating.secret):
            return f"{giver} is choosing the target: nobody needs to turn away"
        if ui.giver_on_phone(state):
            return f"{giver} is choosing the target on their phone: nobody needs to turn away"
        if ui.armed_at >= 0:  # the first A came (the hint is not redrawn when the wait runs out)
            return f"{giver}: press A again to see your card (everyone else look away)"
        return f"Pass the controls to {giver}, everyone else look away (A twice when ready)"
    if screen == "secret":
        where = "one of your card's 4 cells" if state.variant == "cards" else "any cell"
        return f"{giver}: choose the target, {where} (joystick moves, A picks, B hides)"
    if screen == "play":
        return _play_hint(state, ui, giver)
    if screen == "reveal":
        return f"Round {state.round} scored: the target was {state.target_revealed}{_clues(state)} (A moves on)"
    if screen == "tiebreak":
        return f"Tie between {player_names(state, state.tied)}: a tie-break round (A goes on)"
    if screen == "game_over":
        verb = "wins" if len(state.winners) == 1 else "win"
        best = max(state.scores)
        return f"{player_names(state, state.winners)} {verb} with {best} points (A or Start to finish)"
    raise ValueError(f"unknown screen {screen!r}")


_HOST_HINTS = {"continue": "continue the game", "new_game": "abandon this game and set up a new one",
               "brightness": "the panel's brightness", "power_off": "power the box off"}
_PACE_HINTS = {False: "computer players take a person's time (A: quicker)",
               True: "computer players play quickly (A: at a person's pace)"}
_CLUE_CHECK_HINTS = {True: "written clues are checked against the clue rules (A: take them as written)",
                     False: "written clues are taken as written, a house rule (A: check them again)"}


def clue_text(words: tuple[str, ...]) -> str:
    """A written clue as one piece of text: its words, a space between."""
    return " ".join(words)


def _clues(state: GameState) -> str:
    """The round's written clues for a sentence: `, clue "sky"`, `, clues "sky" and "cielo sereno"`;
    nothing for spoken ones (the console did not hear them)."""
    said = [f'"{clue_text(clue.words)}"' for clue in state.clues if clue.written]
    if not said:
        return ""
    return f", clue {said[0]}" if len(said) == 1 else f", clues {' and '.join(said)}"


def _confirm_hint(ui: Ui) -> str:
    answer = "NO" if ui.choice == 0 else "YES"
    item = HOST_ITEMS[ui.menu_item]
    if item == "quit":
        kept = ("The game is saved: start again to resume it." if ui.store_keeps else
                "The store memory:// keeps nothing: this game will be lost.")
        return f"Quit mid-game? {kept} q again or A on YES quits, B goes back ({answer} chosen)"
    what = "Abandon this game for a new one" if item == "new_game" else "Power the box off"
    return f"{what}? ({answer} chosen, left/right switches, A confirms, B goes back)"


def _setup_hint(ui: Ui) -> str:
    s = ui.setup
    keys = "(left/right changes, A next, B back)"
    item = SETUP_ITEMS[s.item]
    if item == "players":
        return f"Set-up: {s.players} players {keys}"
    if item == "computers":
        return f"Set-up: {s.computers} of them computer players {keys}"
    if item == "level":
        return f"Set-up: the computer players play as {'a child' if s.level == 'child' else 'an expert'} {keys}"
    if item == "lang":
        return f"Set-up: the computer players write their clues in {LANGUAGE_NAMES[s.lang]} {keys}"
    if item == "variant":
        rule = "targets from a drawn card" if s.variant == "cards" else "any cell can be the target"
        return f"Set-up: {s.variant} variant, {rule} {keys}"
    if item == "first_giver":
        first = "a random player" if s.first_giver is None else ui.colors[s.first_giver].capitalize()
        return f"Set-up: {first} gives the first cue {keys}"
    return "Set-up: press A to start the game (B back)"


LANGUAGE_NAMES = {"en": "English", "it": "Italian", "cs": "Czech", "ro": "Romanian", "es": "Spanish",
                  "vi": "Vietnamese"}


def _play_hint(state: GameState, ui: Ui, giver: str) -> str:
    phase = state.phase
    placed = ""
    if ui.pending is not None:
        placed = f"{player_name(state, ui.pending.player)} placed a pawn on {ui.pending.cell} (B takes it back); "
        if phase == "round_over":
            return f"{placed}any other button reveals the target"
    turn = current_player(state)
    if turn is not None and is_computer(ui.seating.holder(turn)):
        doing = {"clue1": "thinks of a clue", "clue2": "thinks of a second clue, or to pass"}.get(
            phase, f"places its {'first' if phase == 'guess1' else 'second'} pawn")
        return f"{placed}{player_name(state, turn)} {doing}{_clues(state)}"
    if phase == "clue1":
        deaf = state.computers_guess()
        return (f"{giver}: give your first clue, one word, then press A" +
                (" (the computer players read only a clue typed on a phone: a spoken one, they guess "
                 "from the pawns)" if deaf else ""))
    if phase == "clue2":
        pick = "CLUE (C)" if ui.choice == 0 else "PASS (P)"
        return (f"{placed}{giver}: give a second clue of up to two words, or pass ({pick} chosen, A "
                f"confirms){_clues(state)}")
    if phase not in ("guess1", "guess2"):
        raise ValueError(f"the play screen has nothing to ask for in the {phase} phase")
    which = "first" if phase == "guess1" else "second"
    return f"{placed}{player_name(state, current_player(state))}: place your {which} pawn (A places){_clues(state)}"
