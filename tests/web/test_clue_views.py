"""A written clue is public, like one said aloud: every phone's view and the public one (the panel
stream's) carry the round's clues from the moment each is given until the next round, at the
reveal both of them; the round's card and target still reach only the secret's holder."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from console.game import rules
from console.game.board import Cell
from console.game.seating import Seating, dealt
from console.play import intents
from console.play.intents import Player
from console.play.table import act, screen_for
from console.view.ui import Ui
from console.web.views import ViewTexts, public_view, seat_view

PHONES = {seat: f"{seat:064x}" for seat in range(4)}


def start() -> tuple[rules.GameState, Ui]:
    game = rules.apply(None, rules.NewGame(players=4, seed=9, first_giver=0))
    ui = screen_for(game, Ui(seating=Seating(holders=tuple(PHONES.items()))), 0.0)
    return game, replace(ui, seating=dealt(game, ui.seating))


def do(game, ui, seat, intent, t=1.0):
    step = act(game, ui, Player(PHONES[seat], seat), intent, t, random.Random(0))
    return step.game, step.ui


def views(game, ui) -> dict:
    out = {seat: seat_view(game, ui, seat, digest=digest) for seat, digest in PHONES.items()}
    out[None] = public_view(game, ui)
    return out


def test_the_clues_reach_every_phone_until_the_next_round_and_the_card_only_its_holder():
    game, ui = start()
    card = [str(c) for c in game.card_cells]
    shown = views(game, ui)
    assert shown[0]["you"]["card"] == card and all(v["game"]["clues"] == [] for v in shown.values())
    assert all(card[0] not in json.dumps(v) for seat, v in shown.items() if seat != 0)
    game, ui = do(game, ui, 0, intents.ChooseTarget(game.card_cells[2]))
    game, ui = do(game, ui, 0, intents.GiveClue("  Tramonto", "it"))
    first = {"words": ["Tramonto"], "lang": "it", "checked": True}
    for seat, view in views(game, ui).items():
        assert view["game"]["clues"] == [first], seat
        assert (view["you"] or {}).get("target") == (card[2] if seat == 0 else None), seat
    for seat in (1, 2, 3):
        game, ui = do(game, ui, seat, intents.Place(Cell(seat, seat)))
    game, ui = do(game, ui, 0, intents.GiveClue("cielo sereno", "it"))
    second = {"words": ["cielo", "sereno"], "lang": "it", "checked": True}
    for seat in (3, 2, 1):
        game, ui = do(game, ui, seat, intents.Place(Cell(seat + 5, seat)))
    game, ui = do(game, ui, 1, intents.Confirm())
    assert ui.screen == "reveal"
    for view in views(game, ui).values():  # the reveal: both clues beside the target, for everyone
        assert view["game"]["clues"] == [first, second] and view["game"]["target"] == card[2]
    game, ui = do(game, ui, 2, intents.Next())
    assert all(v["game"]["clues"] == [] for v in views(game, ui).values())


def test_a_spoken_clue_is_shown_as_one_and_the_views_texts_carry_the_clues_as_sent():
    game, ui = start()
    game, ui = do(game, ui, 0, intents.ChooseTarget(game.card_cells[0]))
    before = ViewTexts(game, ui)
    game, ui = do(game, ui, 0, intents.GiveClue())
    texts = ViewTexts(game, ui, before=before)
    assert json.loads(texts.text(None))["game"]["clues"] == [{"words": []}]
    assert texts.text(2, digest=PHONES[2]) == json.dumps(seat_view(game, ui, 2, digest=PHONES[2]))


def test_the_hosts_switch_is_in_every_view():
    game, ui = start()
    before = ViewTexts(game, ui)
    assert json.loads(before.text(1, digest=PHONES[1]))["clue_check"] is True
    step = act(game, ui, Player(PHONES[0], 0, host=True), intents.ClueCheck(False), 1.0, random.Random(0))
    after = ViewTexts(step.game, step.ui, before=before)  # its parts lent by the views before: not this one
    assert json.loads(after.text(1, digest=PHONES[1]))["clue_check"] is False
