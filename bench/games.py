"""A whole game's record, played at random: what the lab's still screens (the attract loop, game
over) and its `replay --video` run play back. The busy game and the reveal are the product's
(`console.commands.measure`)."""

from __future__ import annotations

import random

from console.game import rules
from console.game.record import action_to_json
from console.game.rules import Clue, NewGame, Next


def whole_game(players: int, seed: int = 5) -> list[dict]:
    """A whole game's record (JSON objects), moves picked at random among the legal ones, a
    second clue every round."""
    rng = random.Random(seed)
    actions = [NewGame(players=players, seed=seed, first_giver=0, variant="free")]
    state = rules.apply(None, actions[0])
    while not rules.is_terminal(state):
        legal = rules.legal_actions(state)
        if state.phase in ("clue2", "round_over"):
            action = next(a for a in legal if isinstance(a, (Clue, Next)))
        else:
            action = rng.choice([a for a in legal if not isinstance(a, rules.TakeBack)] or legal)
        state = rules.apply(state, action)
        actions.append(action)
    return [action_to_json(a) for a in actions]
