"""Any stream of well-formed phone messages, from several phones at once, through the real server
and loop (new games with computer players among them, who play on as the phones send): the
console keeps running, every phone gets an answer, and the stored record replays to exactly the
game the panel shows (nothing a phone sent was applied without being stored)."""

from __future__ import annotations

import json
import threading

from hypothesis import given, settings, strategies as st

from console.game import rules
from console.game.board import ALL_CELLS
from console.game.record import action_from_json
from console.play.ports import Chore
from tests.phones import WAIT_S, PhoneTable

CELLS = st.sampled_from([str(c) for c in ALL_CELLS[:40]] + ["P30", "H15"])
MESSAGES = st.one_of(
    st.builds(lambda c: ("cursor", {"cell": c}), CELLS),
    st.builds(lambda c: ("place", {"cell": c}), CELLS),
    st.builds(lambda c: ("choose", {"cell": c}), CELLS),
    st.sampled_from([("take_back", {}), ("confirm", {}), ("clue", {}), ("pass", {}), ("next", {}),
                     ("leave", {}), ("brightness", {"delta": 1}), ("abandon", {})]),  # abandon: new games start
    st.builds(lambda p, v, f: ("new_game", {"players": p, "variant": v, "first_giver": f}),
              st.integers(2, 11), st.sampled_from(["cards", "free"]), st.none() | st.integers(0, 3)),
    st.builds(lambda p, v, c, l, g: ("new_game", {"players": p, "variant": v, "computers": c, "level": l, "lang": g}),
              st.integers(3, 8), st.sampled_from(["cards", "free"]), st.integers(0, 6),
              st.sampled_from(["child", "expert"]), st.sampled_from(["en", "cs", "vi"])),
    st.builds(lambda fast: ("computer_pace", {"fast": fast}), st.booleans()),
    st.builds(lambda t, l: ("clue", {"text": t, "lang": l}), st.text(max_size=20) | st.sampled_from(["sky", "red", "a b"]),
              st.sampled_from(["en", "it", "vi"])),
    st.builds(lambda on: ("clue_check", {"on": on}), st.booleans()),
    st.builds(lambda s: ("take", {"seat": s}), st.integers(0, 12)),
    st.builds(lambda c: ("join", {"code": c}), st.text(max_size=8)),  # any text: non-ASCII too
    st.builds(lambda p: ("host", {"pin": p}), st.text(max_size=8)),
    st.builds(lambda t: ("resume", {"token": t}), st.text(max_size=40)),
)


@settings(max_examples=6)
@given(variant=st.sampled_from(["free", "cards"]),  # in free any cell is a target: rounds move on
       computers=st.integers(0, 2), level=st.sampled_from(["child", "expert"]),
       script=st.lists(st.tuples(st.integers(0, 2), MESSAGES), min_size=20, max_size=80))
def test_any_stream_of_phone_messages_keeps_the_console_whole(variant, computers, level, script):
    with PhoneTable() as table:
        phones = [table.phone().join(table.code, seat) for seat in range(3)]
        phones[0].send("new_game", players=3 + computers, variant=variant, first_giver=0, computers=computers,
                       level=level, lang="it")
        for who, (verb, fields) in script:
            phones[who].send(verb, **fields)
        for phone in phones:  # the server has read (and queued) everything each phone sent
            phone.send_raw("end")
            assert phone.expect_refusal_of_text()
        table.settle()  # and the app loop has applied all of it
        assert table.app.running
        # the game and its record at one moment of the loop (computer players may still be playing)
        seen, looked = [], threading.Event()
        table.app.events.put(Chore(lambda store: (seen.append((table.app.game, table.record())), looked.set())))
        assert looked.wait(WAIT_S)
        game, record = seen[0]
        if game is not None:
            assert rules.replay(action_from_json(line) for line in record) == game
        assert all(json.dumps(m) for phone in phones for m in phone.log)
