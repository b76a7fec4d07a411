"""A written clue through the one handler: the giver's phone's text checked against the clue rules
(game/clue.py) before any action is made, a refusal per rule with the key and word the phone says
it by, the host's house-rule switch (the same intent from the joystick's host menu and the host's
phone, kept across a restart), the record saying whether it was checked, and the panel's clue
screen giving way to the board at the first press or tap."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from console.game import rules
from console.game.clue import RULES
from console.game.rules import ChooseTarget, NewGame, RuleError
from console.game.seating import Seating, dealt
from console.play import controller, intents
from console.play.intents import Player
from console.play.keeper import CLUE_CHECK_SETTING
from console.play.ports import Request
from console.play.table import GAME_RULES, act, screen_for
from console.store.games import GameStore
from console.view.hints import describe
from console.view.render import render
from console.view.screens import clue_seconds
from console.view.ui import HOST_MENU, Ui
from tests.gameplay import c
from tests.play.test_panel_app import Player as Box

T = 50.0
GIVER, GUESSER = "g" * 64, "h" * 64


def seated(game: rules.GameState, **ui) -> Ui:
    seating = dealt(game, Seating(holders=((0, GIVER), (1, GUESSER))))
    return replace(screen_for(game, Ui(), T - 10), seating=seating, **ui)


def chosen(players: int = 4) -> rules.GameState:
    game = rules.apply(None, NewGame(players=players, seed=2, variant="free"))
    return rules.apply(game, ChooseTarget(c("H15")))


def second(players: int = 4) -> rules.GameState:
    game = rules.apply(chosen(players), rules.Clue(("sky",), "en", True))
    for seat in range(1, players):
        game = rules.apply(game, rules.Place(c(f"A{seat}"), seat))
    return game


def give(game, text, lang="en", **ui):
    return act(game, seated(game, **ui), Player(GIVER, 0), intents.GiveClue(text, lang), T, random.Random(0))


def test_a_written_clue_is_checked_kept_with_its_language_and_shown_on_the_panel():
    step = give(chosen(), "  Tramonto ", "it")
    clue = rules.Clue(("Tramonto",), "it", True)
    assert step.actions == (clue,) and step.game.clues == (clue,) and step.game.phase == "guess1"
    assert step.ui.screen == "play" and step.ui.clue_screen == clue_seconds((clue,)) > 0
    assert render(step.game, step.ui, T + 0.1) != render(step.game, replace(step.ui, clue_screen=0.0), T + 0.1)
    after = step.ui.clue_ends()
    assert render(step.game, step.ui, after) == render(step.game, replace(step.ui, clue_screen=0.0), after)


def test_a_second_clue_of_two_words_and_a_spoken_one_as_today():
    step = give(second(), "cielo sereno", "it")
    assert step.game.clues[-1] == rules.Clue(("cielo", "sereno"), "it", True) and step.game.phase == "guess2"
    spoken = give(chosen(), None)
    assert spoken.actions == (rules.Clue(),) and spoken.ui.clue_screen == 0.0


# One text per rule that breaks it (a first clue, but the comparative's), and the word named.
BREAKS = {
    "empty": ("   ", False, ""),
    "too_long": ("a" * 41, False, ""),
    "not_letters": ("<b>sky</b>", False, "<b>sky</b>"),
    "invisible": ("sky\u200b", False, "sky\ufffd"),
    "mixed_script": ("r\u0435d", False, "r\u0435d"),  # a Cyrillic е among Latin letters
    "other_script": ("небо", False, "небо"),
    "coordinate": ("H15", False, "H15"),
    "colour_name": ("Rosso", False, "Rosso"),
    "comparative": ("più chiaro", True, "più"),
    "too_many_words": ("cielo sereno", False, "cielo sereno"),
}


def test_every_rule_of_the_check_has_a_case_here():
    assert set(BREAKS) == set(RULES)


@pytest.mark.parametrize("rule", RULES)
def test_a_clue_that_breaks_a_rule_is_refused_with_its_key_and_word_and_changes_nothing(rule):
    text, is_second, word = BREAKS[rule]
    game = second() if is_second else chosen()
    with pytest.raises(RuleError) as refused:
        give(game, text, "it")
    assert refused.value.key == f"clue_{rule}" and refused.value.params["word"] == word, str(refused.value)
    assert game.phase == ("clue2" if is_second else "clue1")  # nothing was applied


def test_a_clue_is_refused_as_out_of_turn_before_its_words_are_read():
    game = rules.apply(chosen(), rules.Clue())
    with pytest.raises(RuleError) as refused:
        give(game, "red")  # guessing: no clue now, whatever it says
    assert "not possible now" in str(refused.value)
    guesser = seated(chosen())
    with pytest.raises(RuleError) as refused:
        act(chosen(), guesser, Player(GUESSER, 1), intents.GiveClue("red"), T, random.Random(0))
    assert refused.value.key == "only_giver"


def test_a_language_no_check_speaks_is_a_refusal_not_a_crash():
    with pytest.raises(RuleError) as refused:
        give(chosen(), "sky", "xx")
    assert refused.value.key == "bad_message"


@pytest.mark.parametrize("text, is_second, words", [
    ("red", False, ("red",)), ("H15", False, ("H15",)), ("blue sky", False, ("blue", "sky")),
    ("più chiaro", True, ("più", "chiaro")), ("a b c", True, ("a", "b", "c")),
])
def test_with_the_check_off_the_games_clue_rules_are_the_tables_and_the_record_says_so(text, is_second, words):
    game = second() if is_second else chosen()
    step = give(game, text, "it", clue_check=False)
    assert step.actions == (rules.Clue(words, "it", False),)


@pytest.mark.parametrize("rule", sorted(set(RULES) - set(GAME_RULES)))
def test_with_the_check_off_what_a_clue_may_hold_is_still_checked(rule):
    text, is_second, _ = BREAKS[rule]
    with pytest.raises(RuleError) as refused:
        give(second() if is_second else chosen(), text, "it", clue_check=False)
    assert refused.value.key == f"clue_{rule}"


def test_the_game_rules_the_switch_turns_off_are_rules_of_the_check():
    assert set(GAME_RULES) < set(RULES)


def test_only_the_host_switches_the_check():
    game = chosen()
    ui = seated(game)
    with pytest.raises(RuleError) as refused:
        act(game, ui, Player(GUESSER, 1), intents.ClueCheck(False), T, random.Random(0))
    assert refused.value.key == "host_only"
    step = act(game, ui, Player(GUESSER, 1, host=True), intents.ClueCheck(False), T, random.Random(0))
    assert step.ui.clue_check is False and step.actions == () and step.game is game


def test_the_joysticks_host_menu_switches_the_check_and_stays_on_the_item():
    game = chosen()
    ui = seated(game, screen="host", menu_item=HOST_MENU.index("clue_check"), menu_return=("play", T - 1))
    off = controller.handle(game, ui, "a", T, random.Random(0))
    assert off.ui.clue_check is False and off.ui.screen == "host" and off.ui.menu_item == ui.menu_item
    assert controller.handle(game, off.ui, "a", T, random.Random(0)).ui.clue_check is True
    assert "taken as written" in describe(game, off.ui) and "checked" in describe(game, ui)


def test_the_switch_is_kept_across_a_restart():
    box = Box()
    assert box.app.ui.clue_check is True
    box.app.events.put(_request(intents.ClueCheck(False)))
    box.run(0.1)
    assert box.app.ui.clue_check is False and box.store.get_setting(CLUE_CHECK_SETTING) is False
    again = Box(box.store)
    assert again.app.ui.clue_check is False


def _request(intent) -> Request:
    return Request(intents.joystick(), intent, lambda why: None)


def test_a_press_on_the_clue_screen_brings_the_board_back_and_moves_nothing():
    step = give(chosen(), "sky")
    game, ui = step.game, replace(step.ui, seating=Seating(secret=step.ui.seating.secret))  # the joystick guesses
    pressed = controller.handle(game, ui, "right", T + 0.5, random.Random(0))
    assert pressed.ui.clue_screen == 0.0 and pressed.ui.cursor == ui.cursor and pressed.game is game
    assert controller.screen_key(ui, T + 0.5) == ("play", "clue")
    assert controller.screen_key(ui, ui.clue_ends()) == ("play", "")


def test_a_guessers_tap_on_the_board_brings_the_board_back():
    step = give(chosen(), "sky")
    tapped = act(step.game, step.ui, Player(GUESSER, 1), intents.PointAt(c("B2")), T + 0.5, random.Random(0))
    assert tapped.ui.clue_screen == 0.0 and tapped.ui.cursor == c("B2")


def test_the_reveal_shows_the_written_clues_between_the_frame_and_the_points():
    game = rules.apply(give(second(), "cielo sereno", "it").game, rules.Place(c("B1"), 3))
    for seat in (2, 1):
        game = rules.apply(game, rules.Place(c(f"B{seat + 1}"), seat))
    ui = screen_for(game, Ui(), T)
    assert ui.reveal_clues == clue_seconds(game.clues) > 0
    stages = [ui.reveal_stage(T + s) for s in (0.0, ui.reveal_at("clues"), ui.reveal_at("points"), ui.reveal_at("scores"))]
    assert stages == ["frame", "clues", "points", "scores"]
    skipped = [ui]
    for _ in range(3):  # A skips from each stage to the next
        skipped.append(controller.handle(game, skipped[-1], "a", T + 0.1, random.Random(0)).ui)
    assert [u.reveal_stage(T + 0.1) for u in skipped] == ["frame", "clues", "points", "scores"]
    spoken = screen_for(rules.apply(second(), rules.SkipClue()), Ui(), T)
    assert spoken.reveal_clues == clue_seconds((rules.Clue(("sky",), "en", True),))
    assert screen_for(rules.apply(rules.apply(chosen(), rules.Clue()), rules.Place(c("A1"), 1)), Ui(), T).reveal_clues == 0


def test_a_store_that_keeps_the_check_off_gives_it_back_only_as_a_boolean():
    store = GameStore("memory://")
    store.set_setting(CLUE_CHECK_SETTING, "no")
    assert Box(store).app.ui.clue_check is True
