"""No phone but the round's secret holder learns the card or the target before the reveal, in
any game.

Random games are driven as a table would drive them (phone requests from any seat, joystick
presses, legal moves and nonsense mixed, seats changing hands), and at every state each message
every phone would get (and one that took the giver's colour after the deal), the public view
(the panel stream's) and the panel's frame are compared with those of a twin state whose secrets
differ: another card, another target, another deck order, seed and discards, and another cell
under the giver's finger. Equal views mean nothing secret went into them; the holder's own view
(or the panel's secret screen) must show the card, so the check can fail.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

from hypothesis import event, given, settings, strategies as st

from console.game import rules
from console.game.board import ALL_CELLS, Cell, RuleError
from console.game.rules import GameState
from console.game.seating import PANEL, Seating, dealt
from console.play import controller, table
from console.play.intents import Player
from console.view.render import render, shows_secret
from console.view.ui import Ui
from console.web.hub import Hub
from console.web.messages import Message
from console.web.panel import PanelStream
from console.web.views import ViewTexts, board_message, public_view, seat_view
from hal.inputs.events import BUTTONS
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage

SEATS = range(10)
VERBS = ("cursor", "place", "take_back", "confirm", "choose", "clue", "pass", "next", "brightness")


def twin(game: GameState, ui: Ui) -> tuple[GameState, Ui]:
    """The same game as the table sees it, with every secret changed."""
    changes = dict(seed=game.seed + 1, deck=tuple(reversed(game.deck)) + (99,), discards=(7,) + game.discards,
                   reshuffles=game.reshuffles + 3)
    if game.card is not None:
        changes["card"] = (game.card + 37) % 100
    if game.target is not None and (game.target_revealed is None or ui.pending is not None):
        changes["target"] = Cell((game.target.row + 5) % 16, (game.target.col + 11) % 30)
    ui_changes = dict(card_choice=(ui.card_choice + 1) % 4)
    if ui.screen == "secret":
        ui_changes["cursor"] = Cell((ui.cursor.row + 3) % 16, (ui.cursor.col + 7) % 30)
    return replace(game, **changes), replace(ui, **ui_changes)


def digest(seat: int) -> str:
    return f"{seat:064x}"


# the views last sent, as the phones' room keeps them: one for the states played, one for their twins
LAST_SENT: dict[bool, ViewTexts | None] = {False: None, True: None}
INTRUDER = "f" * 64  # a phone that took the giver's colour after the round was dealt


def messages(game, ui, twinned: bool = False) -> dict:
    """What each phone (by its token's digest; None: the panel stream) is sent in this state,
    as the JSON sent: one in every seat, and an intruder in the giver's."""
    out = {digest(seat): json.dumps(seat_view(game, ui, seat, digest=digest(seat), host=seat == 0, taken=(0, 2)))
           for seat in SEATS}
    out[INTRUDER] = json.dumps(seat_view(game, ui, game.giver, digest=INTRUDER, taken=(0, 2)))
    out[None] = json.dumps(public_view(game, ui))
    # what the phones' room sends: the same text, the game encoded once, and its parts lent by
    # the views of the state before where that state's are the same
    sent = LAST_SENT[twinned] = ViewTexts(game, ui, before=LAST_SENT[twinned])
    texts = {digest(seat): sent.text(seat, digest=digest(seat), host=seat == 0, taken=(0, 2)) for seat in SEATS}
    texts[INTRUDER] = sent.text(game.giver, digest=INTRUDER, taken=(0, 2))
    assert {**texts, None: sent.text(None)} == out
    return out


HUB = Hub()
STREAM = PanelStream(HUB, OutputStage(Layout(LayoutOptions())))


def spectator_frame(game: GameState, ui: Ui, t: float) -> bytes:
    """What /panel streams when the panel has drawn this state (published as the app loop does)."""
    HUB.publish_state(game, ui, t)
    HUB.publish_frame(render(game, ui, t), t)
    return STREAM.frame_message(spectator=True)


def check_no_secret_leaks(game: GameState | None, ui: Ui, t: float) -> None:
    if game is None:
        return
    other_game, other_ui = twin(game, ui)
    mine, theirs = messages(game, ui), messages(other_game, other_ui, twinned=True)
    for who in mine:
        if who != ui.seating.secret:
            assert mine[who] == theirs[who], f"{who} sees a secret in {game.phase} on {ui.screen}"
    if not shows_secret(ui):  # the panel's own round's secret screen is the only one with the card
        assert render(game, ui, t) == render(other_game, other_ui, t), f"the panel shows a secret on {ui.screen}"
    assert spectator_frame(game, ui, t) == spectator_frame(other_game, other_ui, t), \
        f"/panel shows a secret on {ui.screen}"  # even the joystick giver's card: a phone could peek
    if game.phase == "choose_target" and game.variant == "cards":  # the holder does see the card: the check bites
        if ui.seating.secret in mine:
            assert mine[ui.seating.secret] != theirs[ui.seating.secret]
        elif ui.screen == "secret":
            assert render(game, ui, t) != render(other_game, other_ui, t)
    if game.phase == "round_over" and ui.pending is not None:  # scored, not yet revealed: the
        other_game = replace(other_game, scores=tuple(s + 1 for s in game.scores),  # points would tell
                             last_round_points=tuple(p + 1 for p in game.last_round_points))
        mine, theirs = messages(game, ui), messages(other_game, other_ui, twinned=True)
        assert all(mine[who] == theirs[who] for who in mine if who != ui.seating.secret)


def request(ui: Ui, seat: int, verb: str, cell: Cell | None = None, holder: str | None = None,
            text: str | None = None) -> tuple:
    """A player's request: (the player of `seat`, by default whoever holds it, the intent); a
    clue's `text` typed in Italian (none: said aloud)."""
    field = {"cursor": "cell", "place": "cell", "choose": "cell", "brightness": "delta"}.get(verb)
    fields = {} if field is None else {field: cell if field == "cell" else 1}
    if text is not None:
        fields = {"text": text, "lang": "it"}
    intent = Message(verb, 1, fields).intent
    return Player(ui.seating.holder(seat) if holder is None else holder, seat, host=True), intent


def sensible(game: GameState, ui: Ui, draw) -> tuple | str:
    """A move that takes the game forward, as a phone request or a joystick press."""
    if ui.pending is not None and draw(st.booleans()):
        return request(ui, ui.pending.player, draw(st.sampled_from(("confirm", "take_back"))))
    legal = rules.legal_actions(game)
    if not legal:
        return "a"
    action = draw(st.sampled_from(legal[:40]))
    if isinstance(action, rules.ChooseTarget):
        if ui.seating.secret == PANEL:
            return "a"  # the joystick giver: A twice opens the secret screen, A picks
        return request(ui, game.giver, "choose", action.cell, holder=ui.seating.secret)
    if isinstance(action, rules.Redeal):
        return "seats"
    if isinstance(action, rules.Place):
        return request(ui, action.player, draw(st.sampled_from(("cursor", "place"))), action.cell)
    if isinstance(action, rules.SkipClue):
        return request(ui, game.giver, "pass")
    if isinstance(action, rules.Clue):  # said aloud, or typed (every view shows its words)
        return request(ui, game.giver, "clue", text=draw(st.sampled_from((None, "tramonto", "cielo sereno", "rosso"))))
    return request(ui, draw(st.sampled_from(SEATS)), "next")


@settings(max_examples=40)
@given(data=st.data(), players=st.integers(3, 10), variant=st.sampled_from(rules.VARIANTS),
       first=st.integers(0, 9), seed=st.integers(0, 2**31 - 1))
def test_no_message_to_another_seat_nor_the_panel_carries_the_card_or_the_target(data, players, variant, first, seed):
    draw = data.draw
    rng = random.Random(seed)
    t = 0.0
    phones = sorted(draw(st.sets(st.sampled_from(SEATS))))
    ui = Ui(room_code="ACEF", seating=Seating(holders=tuple((s, digest(s)) for s in phones)))
    step = table.act(None, ui, Player(ui.seating.holder(0), 0, host=True),
                     Message("new_game", 1, dict(players=players, variant=variant, first_giver=first % players)).intent,
                     t, rng)
    game, ui = step.game, step.ui
    for _ in range(draw(st.integers(10, 80))):
        t += draw(st.sampled_from((0.05, 0.5, 3.1)))
        check_no_secret_leaks(game, ui, t)
        if draw(st.integers(0, 3)) == 0:  # nonsense: any seat, any verb, any cell, any button, a seat change
            move = draw(st.one_of(
                st.sampled_from(BUTTONS + ("seats",)),
                st.builds(lambda seat, verb, cell: request(ui, seat, verb, cell), st.sampled_from(SEATS),
                          st.sampled_from(VERBS), st.sampled_from(ALL_CELLS))))
        else:
            move = sensible(game, ui, draw)
        try:
            if move == "seats":  # the giver's colour changes hands: a phone's to the joystick, or back
                seating = ui.seating
                if seating.holder(game.giver) == PANEL:
                    seating = seating.take(game.giver, INTRUDER, len(ui.colors), None)
                else:
                    seating = seating.leave(game.giver)
                moved = table.rebound(game, replace(ui, seating=seating), t)
                if moved is None:
                    ui = replace(ui, seating=seating)
                    continue
                step = table.Step(moved[0], moved[1])
            elif isinstance(move, str):
                step = controller.handle(game, ui, move, t, rng)
            else:
                step = table.act(game, ui, *move, t, rng)
        except RuleError:
            continue
        game, ui = step.game, step.ui
        if game is None or rules.is_terminal(game):
            break
    check_no_secret_leaks(game, ui, t)


def test_the_board_message_is_the_same_for_every_game():
    """Sent first on every connection, before any seat: it must depend on nothing but the palette."""
    message = board_message()
    assert set(message) == {"t", "rows", "cols", "colors", "pawns"} and len(message["colors"]) == 480


def test_the_giver_sees_the_card_then_the_target_and_the_table_sees_it_after_the_reveal():
    game = rules.apply(None, rules.NewGame(players=3, seed=5, first_giver=1))
    ui = table.screen_for(game, Ui(seating=Seating(holders=((1, digest(1)), (2, digest(2))))), 0.0)
    ui = replace(ui, seating=dealt(game, ui.seating))
    card = [str(c) for c in game.card_cells]
    assert seat_view(game, ui, 1, digest=digest(1))["you"] == {"card": card, "target": None, "free": False,
                                                                "holder": True}
    assert seat_view(game, ui, 1, digest=INTRUDER)["you"]["card"] is None  # the colour, not the token
    assert seat_view(game, ui, 0)["you"]["card"] is None and public_view(game, ui)["you"] is None
    game = rules.apply(game, rules.ChooseTarget(game.card_cells[3]))
    assert seat_view(game, ui, 1, digest=digest(1))["you"]["target"] == card[3]
    assert seat_view(game, ui, 2, digest=digest(2))["game"]["target"] is None
    game = rules.apply(rules.apply(game, rules.Clue()), rules.Place(ALL_CELLS[0]))
    game = rules.apply(rules.apply(game, rules.Place(ALL_CELLS[1])), rules.SkipClue())
    assert public_view(game, ui)["game"]["target"] == card[3]


@settings(max_examples=25, deadline=None)
@given(data=st.data(), players=st.integers(3, 6), variant=st.sampled_from(rules.VARIANTS),
       seed=st.integers(0, 2**31 - 1))
def test_a_replay_of_a_game_under_way_shows_nothing_of_the_round_not_yet_revealed(data, players, variant, seed):
    """/replay/<id> of the game being played (or of an unfinished one the console will resume):
    its captions and every frame are those of the same record with another target in the round
    that is not revealed yet."""
    from console.view.timeline import replay_timeline
    from console.web.replay import timeline_json

    record = [rules.NewGame(players=players, seed=seed, first_giver=0, variant=variant)]
    game = rules.apply(None, record[0])
    for _ in range(data.draw(st.integers(1, 30))):
        legal = rules.legal_actions(game)
        if not legal:
            break
        action = data.draw(st.sampled_from(legal[:30]))
        record.append(action)
        game = rules.apply(game, action)
    chosen = [i for i, a in enumerate(record) if isinstance(a, rules.ChooseTarget)]
    if not chosen or any(isinstance(a, rules.Next) for a in record[chosen[-1]:]):
        return  # no round under way with its target chosen
    event("a round under way")
    i = chosen[-1]
    state = None
    for action in record[:i]:
        state = rules.apply(state, action)
    others = [c for c in (state.card_cells or ALL_CELLS[::37]) if c != record[i].cell]
    twin_record = record[:i] + [rules.ChooseTarget(data.draw(st.sampled_from(others)))] + record[i + 1:]
    mine, theirs = replay_timeline(record), replay_timeline(twin_record)
    assert timeline_json(mine) == timeline_json(theirs)
    for scene in mine.scenes:
        for t in (scene.start, scene.start + 0.35, scene.start + 0.7 * scene.duration):
            assert mine.frame(t) == theirs.frame(t), f"the replay shows the target in: {scene.caption}"


def test_the_spectator_view_never_shows_the_room_code():
    """/panel needs no code: if it showed the panel's code, anyone who can reach the box could
    read it there and join. The idle board, its attract loop and the set-up, at many moments."""
    from console.view.timeline import attract_frame, replay_timeline

    record = [rules.NewGame(players=3, seed=1, first_giver=0)]
    game = rules.apply(None, record[0])
    for _ in range(12):
        action = rules.legal_actions(game)[0]
        record.append(action)
        game = rules.apply(game, action)
    reveals = replay_timeline(record).reveals()
    for screen in ("idle", "setup"):
        for t in (0.0, 0.3, 0.7, 1.1, 1.9):  # the reveal frame of the attract loop; the set-up shows the code
            frames = {}
            for code in ("ACEF", "KPRT"):
                ui = Ui(screen=screen, room_code=code)
                panel = render(None, ui, t)
                if screen == "idle":
                    panel = attract_frame(reveals, ui, 45.0 + t) or panel
                HUB.publish_state(None, ui, t)
                HUB.publish_frame(panel, t)
                frames[code] = (panel, STREAM.frame_message(spectator=True))
            assert frames["ACEF"][1] == frames["KPRT"][1], f"/panel shows the code on {screen} at {t}"
            assert frames["ACEF"][0] != frames["KPRT"][0]  # the panel does show it: the check bites
            assert STREAM.frame_message(spectator=True) != STREAM.frame_message() or screen == "idle"
    ui = Ui(screen="idle", room_code="ACEF")  # the attract loop's scoreboard has no code: nothing blanked
    scores = attract_frame(reveals, ui, 45.0 + 4.2)
    HUB.publish_state(None, ui, 0.0)
    HUB.publish_frame(scores, 0.0)
    assert STREAM.frame_message(spectator=True) == STREAM.frame_message()


def test_views_lend_their_parts_only_to_a_state_with_the_same_inputs():
    """A phone's view is the same text whether its parts were encoded for it or lent by the
    views of the state before: each input of those parts changed on its own, the same game."""
    game = rules.apply(None, rules.NewGame(players=4, seed=3, first_giver=1))
    game = rules.apply(rules.apply(game, rules.ChooseTarget(game.card_cells[0])), rules.Clue())
    ui = Ui(screen="play", cursor=Cell(3, 20), seating=Seating(holders=((1, digest(1)),), secret=digest(1)))
    changes = [dict(cursor=Cell(4, 21)), dict(screen="reveal"), dict(screen="play"),
               dict(pending=rules.Pawn(2, Cell(5, 5))), dict(pending=None), dict(seating=replace(ui.seating, secret=None)),
               dict(seating=ui.seating), dict(colors=("blue",) + ui.colors[1:]),
               dict(setup=replace(ui.setup, players=7, variant="free")), dict(clue_check=False),
               dict(fast_computers=True)]
    before = ViewTexts(game, ui)
    for change in changes:
        ui = replace(ui, **change)
        views = ViewTexts(game, ui, before=before)
        for seat, who in ((1, digest(1)), (2, None), (None, None), (9, None)):
            for host in (False, True):
                assert views.text(seat, digest=who, host=host, taken=(1,), open_seats=(0, 2)) == json.dumps(
                    seat_view(game, ui, seat, digest=who, host=host, taken=(1,), open_seats=(0, 2))), change
        before = views
