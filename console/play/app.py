"""The imperative shell: one `tick` drains inputs, turns each into a step (the controller's for a
press, the handler's for a request), has the keeper keep it before anything shows it, renders,
pushes the frame only if it changed, and says when it must tick again: the first moment the frame
can change (the renderer says, `render_timed`), a timer of its own, or an input, whichever comes
first. Between those it sleeps, so a still screen costs nothing. A phone's request comes on the
same queue as a press (a `Request`), and this thread alone changes the game.

Everything with a side effect comes in from outside (clock, driver, inputs, store, power-off),
so the same loop runs on the Pi, in the terminal simulator, headless on a virtual clock in the
tests, and under the benchmark.
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from console.game import rules
from console.game.rules import GameState, RuleError
from console.play import controller, table
from console.play.answers import StoreAnswers
from console.play.computers import Computers
from console.play.hold import ConsoleHolds
from console.play.intents import Refusal
from console.play.pictures import Pictures
from console.play.ports import Chore, InputSource, Publisher, Request, Shutdown
from console.play.sd_notify import SystemdNotifier
from console.play.keeper import Keeper
from console.view.hints import describe
from console.view.render import shows_secret
from console.view.ui import Ui
from hal.drivers.base import Driver
from hal.inputs.events import QUIT, RELEASE, EventQueue, InputEvent
from hal.output import OutputStage, Panel

log = logging.getLogger("hues-console")
BOOT_TO_FIRST_FRAME = "boot_to_first_frame_s"  # the store setting `diag` reads
START_WAIT_S = 0.5  # at start, how long the first frame waits for the store's answers


@dataclass
class AppStats:
    frames_pushed: int = 0


class ConsoleApp:
    def __init__(
        self,
        stage: OutputStage,
        driver: Driver,
        events: EventQueue,
        sources: list[InputSource],
        store: Any,
        *,
        colors: tuple[str, ...] = rules.DEFAULT_COLOR_NAMES,
        rng: random.Random | None = None,
        shutdown: Shutdown | None = None,
        hint: Callable[[str], None] | None = None,
        journal: Callable[[str, Any], None] | None = None,
        idle_timeout_s: float = 0.0,
        notifier: SystemdNotifier | None = None,
        boot_clock: Callable[[], float] = lambda: time.clock_gettime(time.CLOCK_BOOTTIME),
        computers: Computers | None = None,
    ):
        self.panel = Panel(stage, driver)
        self.events = events
        self.sources = sources
        self.store = store
        self.rng = rng or random.Random()
        self.shutdown = shutdown or Shutdown()
        self.hint = hint
        self.idle_timeout_s = idle_timeout_s  # 0: menus never fall back to the idle board
        self._last_input = 0.0
        self.answers = StoreAnswers(store, events)
        self.keeper = Keeper(store, self.answers, colors, journal=journal)
        self.stats = AppStats()
        self.running = True
        self.powering_off = False
        self._last_hint = ""
        self._hinted: tuple = (None, None)
        self.holds = ConsoleHolds(self.shutdown.button, self.shutdown.hold_s, controller.HOST_MENU_HOLD_S)
        self._shown = ("", "")  # controller.screen_key of what the panel shows
        self._changed_by_itself_at = -1.0  # when the screen last changed with no press
        self.start_wait_s = START_WAIT_S  # how long `start` waits for the store's answers
        store.watch(events.wake)  # Redis gone or back, the journal's disk full: the loop looks at once
        self.computers = computers or Computers(events)  # the computer players' moves, worked out off this thread
        self.pictures = Pictures(self.panel.layout.width, self.panel.layout.height, self.answers, self.computers)
        self.keeper.on_finished = self.pictures.game_ended
        self.publisher: Publisher | None = None  # who hears of each state and frame (the web companion's hub)
        self._published: tuple = (None, None)
        # The service's systemd notifier (READY, watchdog) and the clock since power-on: on the
        # box the first frame's time since boot is logged and kept for `diag`.
        self.notifier = notifier
        self._boot_clock = boot_clock
        self._timers_at = -math.inf  # when the first of the app's own timers is (`_next_tick`)
        self._after_chores: tuple = (None, None)  # (game, ui) as the last full tick left them
        # `put_on` may come from another thread (the lab, the tests) while the loop runs
        self._lock = threading.RLock()  # re-entered by a Chore that puts a game on in a tick

    # The kept state, as the loop, the tests and the commands read it.
    @property
    def game(self) -> GameState | None:
        return self.keeper.game

    @game.setter
    def game(self, game: GameState | None) -> None:
        self.keeper.game = game

    @property
    def ui(self) -> Ui:
        return self.keeper.ui

    @ui.setter
    def ui(self, ui: Ui) -> None:
        self.keeper.ui = ui

    @property
    def colors(self) -> tuple[str, ...]:
        return self.keeper.colors

    @property
    def room_codes(self) -> Callable[[], str] | None:
        """A new code for the phones to join with, each game (the web companion's)."""
        return self.keeper.room_codes

    @room_codes.setter
    def room_codes(self, codes: Callable[[], str] | None) -> None:
        self.keeper.room_codes = codes

    @property
    def stage(self) -> OutputStage:
        return self.panel.stage

    @property
    def driver(self) -> Driver:
        return self.panel.driver

    # --- start -------------------------------------------------------------------------------

    def seat_phones(self, kept: object, keep: Callable[[list], None]) -> None:
        """Phones may hold seats: see `Keeper.seat_phones`. Before `start`."""
        self.keeper.seat_phones(kept, keep)

    def start(self, now: float) -> None:
        """Restore the brightness, show the last winners and offer an unfinished game for resume.
        The store is asked off the loop's thread; what it has not answered within START_WAIT_S is
        applied when it comes (the resume screen then appears by itself). A store that keeps
        nothing is not waited for (it may still be opening: `OpeningStore`). The web server may
        be serving already: a phone's request waits on the queue until the first tick."""
        with self._lock:
            self.keeper.start(now, self.stage.brightness)
            if self.ui.store_keeps:  # else there is nothing kept to wait for: the memory store's answers are empty
                self.answers.wait(self.start_wait_s)
            else:
                self.answers.settle()
            self._shown = controller.screen_key(self.ui, now)  # the first screen is no change
            if self.publisher is not None:  # the phones' room knows the code as soon as it can be printed
                self._published = (self.game, self.ui)
                self.publisher.publish_state(self.game, self.ui, now)

    def put_on(self, game: GameState | None, ui: Ui, now: float) -> None:
        """Show `game` on `ui`'s screen from now, as if a press had opened it (the benchmark's
        busy game): no grace for the presses that follow."""
        with self._lock:
            self.keeper.put_on(game, ui)
            self._shown = controller.screen_key(ui, now)

    # --- one frame ---------------------------------------------------------------------------

    def stop(self) -> None:
        """End the loop from another thread or a signal handler, waking it if it sleeps."""
        self.running = False
        self.events.wake()

    def tick(self, now: float) -> float:
        """One round of the loop at `now`; returns when the next must come if no input does.

        A tick that only the time brought (no input, the same states as the last full tick, its
        timers not yet due, no news from the store) only draws: what the rest would do then is
        nothing (a hold counts, a menu falls back to the idle board, a poll or the store's chore
        is due only at a time `_next_tick` said). A blinking screen's frames then cost a look-up
        in those drawn ahead (`Pictures`); a still one wakes for nothing."""
        with self._lock:
            return self._tick(now)

    def _tick(self, now: float) -> float:
        for source in self.sources:
            source.poll(now)
        self._note_change_by_itself(now)
        events = self.events.drain()
        store_news = self.ui.store_online != self.store.online or self.ui.disk_full == self.store.journal_ok
        link = self.driver.link
        receiver_news = link is not None and self.ui.receiver_answers != link.answering
        chores = bool(events) or store_news or receiver_news or now >= self._timers_at \
            or self.ui is not self._after_chores[1] or self.game is not self._after_chores[0]
        if chores:
            ui = self.ui
            for event in events:
                self._on_event(event, now)
            self._track_holds(now)
            self._fall_back_to_idle(now)
            if self.ui is not ui:  # the same Ui at the same time shows the same screen
                self._note_change_by_itself(now)
            self.store.tick(now)
            self.keeper.look_again(now)
            for request in self.computers.take(self.ui, now):
                self._on_request(request, now)
            self.computers.consider(self.game, self.ui, now)
        if self.ui.store_online != self.store.online:
            self.ui = replace(self.ui, store_online=self.store.online)
        if self.ui.disk_full == self.store.journal_ok:
            self.ui = replace(self.ui, disk_full=not self.store.journal_ok)
        if receiver_news:  # the hint says so (the
            self.ui = replace(self.ui, receiver_answers=link.answering)  # terminal, the log, /panel)
        until = self._push(now)
        if chores:
            self._timers_at = self._next_tick(now)
            self._after_chores = (self.game, self.ui)
        return min(until, self._timers_at)

    def _on_event(self, event: InputEvent | Request | Chore, now: float) -> None:
        if isinstance(event, Request):
            self._on_request(event, now)
            return
        if isinstance(event, Chore):
            event.run(self.store)
            return
        if event.button == QUIT:
            if event.kind != RELEASE:
                self._quit(now)
            return
        self.holds.event(event.button, event.kind, event.time)
        if event.kind == RELEASE:
            return
        self._last_input = now
        if 0 <= now - self._changed_by_itself_at < controller.GRACE_S:
            log.debug("%s ignored: the screen changed by itself %.2f s ago", event.button,
                      now - self._changed_by_itself_at)
            return
        self._take_step(controller.handle(self.game, self.ui, event.button, now, self.rng), now)

    def _on_request(self, request: Request, now: float) -> None:
        """A player's intent from another thread (a phone's): done like a press (no grace after
        it), or refused with the handler's or the engine's message."""
        try:
            step = table.act(self.game, self.ui, request.player, request.intent, now, self.rng)
        except RuleError as exc:
            request.reply(exc)
            return
        except Exception:  # a bug in a request's handling must not stop the console for everyone
            log.exception("a player's request could not be handled: %s", type(request.intent).__name__)
            request.reply(Refusal("box_error", "the box could not handle that request"))
            return
        self._last_input = now
        taken = self._take_step(step, now)
        request.reply(None if taken else Refusal("disk_full", "the box could not store that move (its disk is full): "
                                                 "it is not taken"))

    def _take_step(self, step: table.Step, now: float) -> bool:
        """Have the keeper keep the step, then show it; False when the store refused some of it."""
        if not self.keeper.take(step, now):
            return False
        self._shown = controller.screen_key(self.ui, now)
        if step.stop:
            self.powering_off = controller.HOST_ITEMS[self.ui.menu_item] == "power_off"
            log.info("the host chose to %s", "power off" if self.powering_off else "quit")
            self.running = False
        return True

    def _quit(self, now: float) -> None:
        """q in the simulator (and Ctrl-C): at once, unless a game is under way; then it asks
        first, and a second q quits."""
        under_way = self.game is not None and not rules.is_terminal(self.game)
        asked = self.ui.screen == "confirm" and controller.HOST_ITEMS[self.ui.menu_item] == "quit"
        if under_way and not asked:
            self._take_step(table.Step(self.game, controller.open_quit(self.ui, now)), now)
            return
        self.running = False

    def _note_change_by_itself(self, now: float) -> None:
        shown = controller.screen_key(self.ui, now)
        if shown != self._shown:
            self._shown = shown
            self._changed_by_itself_at = now

    def _fall_back_to_idle(self, now: float) -> None:
        if (self.idle_timeout_s and self.ui.screen in controller.IDLE_AFTER_TIMEOUT
                and self.ui.menu_return is None
                and now - max(self._last_input, self.ui.since) >= self.idle_timeout_s):
            self.ui = controller.to_idle(self.game, self.ui, now)

    def _track_holds(self, now: float) -> None:
        """Start held: the host menu after HOST_MENU_HOLD_S (during a game), power-off after
        the shutdown hold (where the box can power off), the red bar counting towards it."""
        opens, progress = self.holds.at(now, lambda: controller.host_menu_opens(self.game, self.ui),
                                        self.shutdown.poweroff is not None)
        if opens:
            self._take_step(table.Step(self.game, controller.open_host_menu(self.ui, now)), now)
        if progress >= 1.0:
            log.info("shutdown button held: powering off")
            self.powering_off = True
            self.running = False
        if progress != self.ui.hold_progress:
            self.ui = replace(self.ui, hold_progress=progress)

    def _next_tick(self, now: float) -> float:
        """The app's own timers: what it must do at a time even if the frame holds still (on
        time: an auto-repeat, the watchdog's ping, the store's own chores, a look for a game to
        resume while one may come). What others change comes as an event or a wake-up."""
        due = self.store.next_due()
        if self.holds.held():
            return now  # a hold counts (the red bar fills, the menu opens): at the frame rate
        if self.keeper.resume_due and self.keeper.can_offer() and not self.answers.asking("resume"):
            due = min(due, self.keeper.resume_look_at)
        for source in self.sources:
            due = min(due, source.next_poll(now))
        if self.idle_timeout_s and self.ui.screen in controller.IDLE_AFTER_TIMEOUT and self.ui.menu_return is None:
            due = min(due, max(self._last_input, self.ui.since) + self.idle_timeout_s)
        if self.notifier is not None:
            due = min(due, self.notifier.next_ping())
        return min(due, self.computers.due(self.ui))

    def _push(self, now: float) -> float:
        """Draw, show the frame if it changed, tell the web and systemd; returns when the frame
        can next change."""
        # The state goes first, before it is even drawn: the phones hear of a tap without waiting
        # for the panel's frame, and the hub pairs each frame with the state published before it
        # (the spectator view hides the secret screen's frames by it).
        self._publish_state(now)
        idle_since = max(self.ui.since, self._last_input) if self.ui.screen == "idle" else None
        frame, until = self.pictures.at(self.game, self.ui, idle_since, now)
        if self.panel.show(frame, private=shows_secret(self.ui), brightness=self.ui.brightness):
            self.stats.frames_pushed += 1
            if self.publisher is not None:
                self.publisher.publish_frame(frame, now)
        if self.notifier is not None:
            if self.stats.frames_pushed == 1 and not self.notifier.ready:
                boot_s = round(self._boot_clock(), 2)
                log.info("first frame %.2f s after the kernel started (CLOCK_BOOTTIME)", boot_s)
                self.store.set_setting(BOOT_TO_FIRST_FRAME, boot_s)
            self.notifier.frame_drawn(now)  # READY=1 once, then the watchdog's pings
        if self.hint is not None and not (self.game is self._hinted[0] and self.ui is self._hinted[1]):
            self._hinted = (self.game, self.ui)  # states are immutable: the same objects, the same hint
            text = describe(self.game, self.ui)
            if text != self._last_hint:
                self.hint(text)
                self._last_hint = text
        return until

    def _publish_state(self, now: float) -> None:
        if self.publisher is not None and not (self.game is self._published[0] and self.ui is self._published[1]):
            self._published = (self.game, self.ui)
            self.publisher.publish_state(self.game, self.ui, now)

    # --- the end ------------------------------------------------------------------------------

    def close(self, flush_s: float = 2.0) -> None:
        """Clear the panel and flush the store: on exit, SIGTERM, or before powering off. What
        Redis has not taken by then stays in the journal (the store logs it) for the next start."""
        with self._lock:
            self.running = False
        self.computers.close()
        try:
            self.panel.close()
        finally:
            try:
                self.store.flush(flush_s)
            finally:
                self.store.close()
        if self.powering_off and self.shutdown.poweroff is not None:
            self.shutdown.poweroff()
