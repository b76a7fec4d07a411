"""Who sits in each seat, and who holds the round's secret: the one place both are decided.

A seat is a pawn colour (its index in the configured colours). Each is held by one player, named
by a holder: the joystick at the box (`PANEL`, which holds every seat nobody else does), a phone
(the digest of the seat token it keeps), or a computer player. A player acts only for the seats
it holds; the host is whoever took the first seat still held, or the joystick.

Mid-game a colour of the game that the joystick holds goes to a phone only once the host has
opened it (`hand_over`), and a colour a phone gives up is the joystick's again. Between games
every colour nobody holds is open.

The round's secret (the card, the target, where the giver points while choosing) is bound when
the round is dealt (a new game, the next round, a tie-break round, a redeal) to exactly one
holder: whoever holds the giver's seat at that moment. Who may see it follows from that binding
alone, never from the screen on show or from who sits in the giver's seat now: the views send
the card and the target only to the holder's phone, the panel draws the card only for `PANEL`,
and only the holder may choose the target. A seat that changes hands never carries the secret:
before the target is chosen the deal is made again for the new occupant (`redeal`: in the cards
variant a `redeal` in the record, the seen card discarded; in `free` just the binding). Once the
target is chosen the holder keeps it until the next round. A token brought to another phone is
the same holder.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from console.game import rules
from console.game.board import RuleError
from console.game.rules import GameState, Redeal

PANEL = "panel"  # the joystick at the box: the holder of every seat nobody else holds
COMPUTER = "computer:"  # a computer player's holder: this and its seat ("computer:2")


def computer_holder(seat: int) -> str:
    return f"{COMPUTER}{seat}"


def is_computer(holder: str | None) -> bool:
    return holder is not None and holder.startswith(COMPUTER)


@dataclass(frozen=True)
class Seating:
    holders: tuple[tuple[int, str], ...] = ()  # (seat, holder) of each seat not the joystick's, oldest first
    opened: frozenset[int] = frozenset()  # the joystick's colours the host opened for the next phone
    # Who the round's secret was dealt to: PANEL, a holder, or None for nobody (no round, or a
    # binding lost in a restart).
    secret: str | None = None

    def holder(self, seat: int) -> str:
        for held, holder in self.holders:
            if held == seat:
                return holder
        return PANEL

    def seat_of(self, holder: str) -> int | None:
        """The seat `holder` holds (the joystick's are many: None for PANEL)."""
        return next((seat for seat, held in self.holders if held == holder), None)

    @property
    def taken(self) -> tuple[int, ...]:
        """The seats someone other than the joystick holds."""
        return tuple(sorted(seat for seat, _ in self.holders))

    @property
    def host_seat(self) -> int | None:
        """The seat of the host's phone: the first a phone took that it still holds."""
        return next((seat for seat, holder in self.holders if not is_computer(holder)), None)

    def is_host(self, holder: str) -> bool:
        """Whether `holder` is the host's phone: it holds `host_seat`."""
        seat = self.host_seat
        return seat is not None and self.holder(seat) == holder

    def open_seats(self, colors: int, playing: int | None) -> tuple[int, ...]:
        """The colours a phone may take now: every free one between games (`playing` None);
        during a game of `playing` players, the watchers' and those the host opened."""
        taken = self.taken
        return tuple(seat for seat in range(colors) if seat not in taken and (
            playing is None or seat >= playing or seat in self.opened))

    def take(self, seat: int, holder: str, colors: int, playing: int | None) -> Seating:
        """`holder` in `seat`, which must be open (see `open_seats`)."""
        if not 0 <= seat < colors:
            raise RuleError(f"there is no seat {seat}: choose 0 to {colors - 1}", "no_such_seat")
        if seat in self.taken:
            raise RuleError("that colour is taken: choose another", "seat_taken")
        if seat not in self.open_seats(colors, playing):
            raise RuleError("that colour plays on the joystick in this game: the host can hand it to a phone",
                            "joystick_seat")
        return replace(self, holders=self.holders + ((seat, holder),), opened=self.opened - {seat})

    def leave(self, seat: int) -> Seating:
        """`seat` is the joystick's again."""
        return replace(self, holders=tuple(entry for entry in self.holders if entry[0] != seat))

    def hand_over(self, seat: int, colors: int) -> Seating:
        """The host's hand-over: a held seat goes to the joystick, a joystick's seat is opened for
        the next phone to take."""
        if seat in self.taken:
            return self.leave(seat)
        return replace(self, opened=self.opened | {seat}) if 0 <= seat < colors else self

    def computer_seats(self, players: int, count: int) -> tuple[int, ...]:
        """Where `count` computer players sit in a game of `players`: the last seats no phone
        holds (fewer when phones hold too many)."""
        free = [seat for seat in reversed(range(players)) if (held := self.holder(seat)) == PANEL or is_computer(held)]
        return tuple(sorted(free[:count]))

    def holds_secret(self, holder: str | None) -> bool:
        return holder is not None and holder == self.secret

    def saved(self) -> list[list]:
        """The phones' seats as the store keeps them: [[seat, holder], ...], oldest first (the
        computer players' come from the game's record: `seat_computers`)."""
        return [[seat, holder] for seat, holder in self.holders if not is_computer(holder)]

    @staticmethod
    def kept(saved: object, colors: int) -> Seating:
        """The seats the store kept (`saved`); anything unreadable in it is left out."""
        holders: list[tuple[int, str]] = []
        for entry in saved if isinstance(saved, list) else ():
            if (isinstance(entry, list) and len(entry) == 2 and type(entry[0]) is int and 0 <= entry[0] < colors
                    and isinstance(entry[1], str) and entry[1] != PANEL and not is_computer(entry[1])
                    and all(seat != entry[0] for seat, _ in holders)):
                holders.append((entry[0], entry[1]))
        return Seating(holders=tuple(holders))


def seat_computers(game: GameState | None, seating: Seating) -> Seating:
    """`seating` with the computer players of the game under way in their seats, and no others:
    they sit as the game starts (its record names them) and leave as it ends. A phone's hold on a
    seat the record gives a computer (kept from before a restart) gives way."""
    computers = () if game is None or rules.is_terminal(game) else tuple(
        (seat, computer_holder(seat)) for seat in range(game.players) if game.computer(seat) is not None)
    seats = {seat for seat, _ in computers}
    holders = tuple(entry for entry in seating.holders if not is_computer(entry[1]) and entry[0] not in seats)
    if holders + computers == seating.holders:
        return seating
    return replace(seating, holders=holders + computers)


# --- the round's secret ---------------------------------------------------------------------


def occupant(game: GameState, seating: Seating) -> str:
    """Who holds the giver's seat now."""
    return seating.holder(game.giver)


def dealt(game: GameState, seating: Seating) -> Seating:
    """`seating` with the round just dealt bound to the giver seat's occupant."""
    return replace(seating, secret=occupant(game, seating))


def redeal(game: GameState | None, seating: Seating) -> tuple[GameState, Seating, tuple] | None:
    """The new deal when the giver's seat changed hands before the target was chosen: (game,
    seating, actions to store); None when nothing is to change."""
    if game is None or game.phase != "choose_target" or seating.secret == occupant(game, seating):
        return None
    actions: tuple = (Redeal(),) if game.variant == "cards" else ()
    for action in actions:
        game = rules.apply(game, action)
    return game, dealt(game, seating), actions


def without_secret(game: GameState) -> GameState:
    """`game` as a player who does not hold the round's secret may know it: the target only once
    the round is scored, and neither the card nor the deck (the cards to come), nor the seed that
    shuffles it (which gives both). What a computer guesser is given to decide on."""
    return replace(game, target=game.target_revealed, card=None, deck=(), discards=(), seed=0)


def deal_key(game: GameState) -> list:
    """What tells one deal from another within a game: a round, and each card drawn in it."""
    return [game.seed, game.round, game.reshuffles, len(game.discards)]


def kept_bindings(before: object, game: GameState, seating: Seating) -> list:
    """The bindings as the store keeps them (a digest, never a token): this deal's, and the one
    before (a deal's binding is kept before its action, so a restart between the two still finds
    the binding of the deal the record reached)."""
    binding = [deal_key(game), seating.secret]
    earlier = [b for b in before if b != binding][-1:] if isinstance(before, list) else []
    return earlier + [binding]


def restored(game: GameState, bindings: object) -> str | None:
    """The holder kept for this deal before a restart; None (nobody) when none was. A computer
    giver's deal needs no keeping: its seat is its computer player's for the whole game (nobody
    may take it or be handed it), so the deal was bound to it, whatever the store kept or lost."""
    if not rules.is_terminal(game) and game.computer(game.giver) is not None:
        return computer_holder(game.giver)
    for binding in bindings if isinstance(bindings, list) else ():
        if isinstance(binding, list) and len(binding) == 2 and binding[0] == deal_key(game) and (
                isinstance(binding[1], str)):
            return binding[1]
    return None
