"""The game and the console's state beside it (`Ui`), and their keeping.

Every change comes as a `table.Step` and is made durable before it is taken: each action in the
local journal and the store (a power cut never loses a move the panel showed), the round's
secret binding before the action that deals it (a restart gives the secret to no one else), the
seats, the brightness and the clue check's house rule as settings. What the store kept comes back
at a start: the brightness, the clue check, the last winners, an unfinished game offered for resume with its binding; the seats the web
companion read (`seat_phones`). The store is asked off the loop's thread (`StoreAnswers`), so a
slow Redis never holds up a frame.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Callable

from console.game import rules, seating
from console.game.record import action_to_json
from console.game.rules import GameState, NewGame
from console.play import table
from console.play.answers import StoreAnswers, last_finished, resumable
from console.store.format import NotDurableError, summary_of
from console.view.ui import Ui

log = logging.getLogger("hues-console")
LOOK_AGAIN_S = 1.0  # how often the idle board asks again for a game to resume, while one may come
SECRET_SETTING = "secret_holder"  # the rounds' secret holders, kept across a restart
BRIGHTNESS_SETTING = "brightness"
CLUE_CHECK_SETTING = "clue_check"  # the host's house rule: written clues held to the clue rules


class Keeper:
    """Keeps `game` and `ui`: changed only by `take` (and `put_on`); a new room code each game."""

    def __init__(self, store: Any, answers: StoreAnswers, colors: tuple[str, ...], *,
                 journal: Callable[[str, Any], None] | None = None) -> None:
        self.store, self.answers, self.colors = store, answers, colors
        self.journal = journal or (lambda kind, what: None)  # ("stored", action) / ("resumed", record)
        self.room_codes: Callable[[], str] | None = None  # a new code for the phones to join with, each game
        self.game: GameState | None = None
        self.ui = Ui()
        self.on_finished: Callable[[], None] = lambda: None  # a game has just ended
        self.resume_due = True  # no game offered for resume yet
        self.resume_look_at = 0.0
        self._brightness_at_start = 1.0
        self._clue_check_changed = False  # the host switched the clue check since the start
        self._bindings: object = None  # the rounds' secret holders as last kept in the store
        self._bound_for: tuple = (None, None)  # the game and holder `_bindings` were last worked out for
        self._seats_kept = seating.Seating()  # the phones' seats from before a restart
        self._keep_seats: Callable[[list], None] | None = None

    def seat_phones(self, kept: object, keep: Callable[[list], None]) -> None:
        """Phones may hold seats (the web companion is on): the seats the store kept (its setting as
        read), and `keep`, which keeps them after each change. Before `start`."""
        self._seats_kept = seating.Seating.kept(kept, len(self.colors))
        self._keep_seats = keep

    # --- start -------------------------------------------------------------------------------

    def start(self, now: float, brightness: float) -> None:
        """The idle board at `brightness` (the configured one) until the store says more: asks it
        for the brightness kept, the last winners and an unfinished game."""
        keeps = not str(getattr(self.store, "url", "")).startswith("memory://")
        self.ui = Ui(since=now, brightness=brightness, store_online=self.store.online, colors=self.colors,
                     store_keeps=keeps, room_code=self.room_codes() if self.room_codes else "",
                     seating=self._seats_kept)
        self._brightness_at_start = brightness
        self.answers.ask("brightness", lambda store: store.get_setting(BRIGHTNESS_SETTING, None), self._got_brightness)
        self.answers.ask("clue_check", lambda store: store.get_setting(CLUE_CHECK_SETTING, None), self._got_clue_check)
        self.answers.ask("winners", last_finished, self._got_winners)
        self.look_again(now)

    def _got_brightness(self, brightness: Any) -> None:
        if type(brightness) in (int, float) and 0 < brightness <= 1 and self.ui.brightness == self._brightness_at_start:
            self.ui = replace(self.ui, brightness=round(brightness, 2))

    def _got_clue_check(self, on: Any) -> None:
        """The house rule as kept, unless the host changed it before the store answered."""
        if type(on) is bool and not self._clue_check_changed:
            self.ui = replace(self.ui, clue_check=on)

    def _got_winners(self, last: dict) -> None:
        if not self.ui.last_winners:
            self.ui = replace(self.ui, last_winners=tuple(last.get("winner_colors", ())))

    def look_again(self, now: float) -> None:
        """Ask the store for a game to resume while none has been offered and none is under way:
        at start, and when Redis is back after a start without it (or another console let go)."""
        if self.resume_due and now >= self.resume_look_at and self.can_offer() and not self.answers.asking("resume"):
            self.resume_look_at = now + LOOK_AGAIN_S
            self.answers.ask("resume", lambda store: (store.unfinished(), store.get_setting(SECRET_SETTING, None)),
                             self._got_unfinished)

    def can_offer(self) -> bool:
        return self.ui.screen == "idle" and (self.game is None or rules.is_terminal(self.game))

    def _got_unfinished(self, answer: tuple[tuple[str, list[dict]] | None, Any]) -> None:
        """Offer the store's unfinished game, replayed as far as the rules accept it (a record the
        rules refuse part-way is cut back there), its round's secret bound as kept. One that came
        while the host was busy (a menu, a new game) is asked for again once the board is idle."""
        found, bindings = answer
        if found is None:
            self.resume_due = not self.store.resume_checked
            return
        if not self.can_offer():
            return
        self.resume_due = False
        offered = resumable(self.store, found)
        if offered is None:
            return
        self.game, record = offered
        self.journal("resumed", record)
        self._bindings, self._bound_for = bindings, (None, None)
        holder = seating.restored(self.game, bindings)  # else nobody's
        seated = seating.seat_computers(self.game, replace(self.ui.seating, secret=holder))
        self.ui = replace(self.ui, screen="resume", choice=0, seating=seated)
        self.redeal_if_moved(self.ui.since)

    def put_on(self, game: GameState | None, ui: Ui) -> None:
        """`game` on `ui`'s screen, as if a step had led there (the benchmark's busy game)."""
        self.game, self.ui = game, ui

    # --- changes -------------------------------------------------------------------------------

    def take(self, step: table.Step, now: float) -> bool:
        """Store the step's actions, then take it; False when the store refused some of them (only
        those it made durable are taken, and the panel says the disk is full)."""
        before_game, before_ui = self.game, self.ui
        if step.abandon:
            self.store.abandon()
        self._store_secret_holder(step.game, step.ui)
        kept = self._store_actions(step.actions, before_game)
        if kept is not None:
            self.game = kept
            self.ui = before_ui if kept is before_game else table.screen_for(kept, before_ui, now)
            self.ui = replace(self.ui, disk_full=True)
            return False
        self.game, self.ui = step.game, step.ui
        seated = seating.seat_computers(self.game, self.ui.seating)  # they sit with a game, leave as it ends
        if seated is not self.ui.seating:
            self.ui = replace(self.ui, seating=seated)
        self.redeal_if_moved(now)
        if self.ui.seating.holders != before_ui.seating.holders and self._keep_seats is not None:
            self._keep_seats(self.ui.seating.saved())
        if self.room_codes is not None and any(isinstance(a, NewGame) for a in step.actions):
            self.ui = replace(self.ui, room_code=self.room_codes())
        if self.game is not None and rules.is_terminal(self.game) and (
                before_game is None or not rules.is_terminal(before_game)):
            self.store.finish(summary_of(self.game))
            self.on_finished()
        if self.ui.brightness != before_ui.brightness:
            self.store.set_setting(BRIGHTNESS_SETTING, self.ui.brightness)
        if self.ui.clue_check != before_ui.clue_check:
            self._clue_check_changed = True
            self.store.set_setting(CLUE_CHECK_SETTING, self.ui.clue_check)
        return True

    def redeal_if_moved(self, now: float) -> None:
        """A deal for the giver seat's new occupant when the seat changed hands before the target
        was chosen (table.rebound). Until its redeal is durable nobody holds the round: it is
        tried again at the next change."""
        moved = table.rebound(self.game, self.ui, now)
        if moved is None:
            return
        game, ui, actions = moved
        self._store_secret_holder(game, ui)
        if self._store_actions(actions, self.game) is None:
            self.game, self.ui = game, ui

    def _store_secret_holder(self, game: GameState | None, ui: Ui) -> None:
        """Keep the round's secret holder in the store, before the action that deals the round."""
        if game is None or rules.is_terminal(game):
            return
        if game is self._bound_for[0] and ui.seating.secret == self._bound_for[1]:
            return  # kept already: the same deal (one state of the game) and holder give the same bindings
        bindings = seating.kept_bindings(self._bindings, game, ui.seating)
        self._bound_for = (game, ui.seating.secret)
        if bindings != self._bindings:
            self._bindings = bindings
            self.store.set_setting(SECRET_SETTING, bindings)

    def _store_actions(self, actions, game: GameState | None) -> GameState | None:
        """Store each action; None when all are durable, else the state the durable ones reach."""
        for action in actions:
            stored = action_to_json(action)
            try:
                if isinstance(action, NewGame):
                    self.store.start_game(stored)
                    game = None
                else:
                    self.store.append(stored)
            except NotDurableError as exc:
                log.error("%s: the move is not taken", exc)
                return game
            self.journal("stored", stored)
            game = rules.apply(game, action)
        return None
