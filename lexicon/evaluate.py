"""How well the computer players play, by the developers' own method (docs/BOTS.md): no data set
of people's guesses for Hues and Cues clues is used, not even to check.

The crowd is an independent source's colour for the same word: color-name-list (an MIT list of
colour names, `lexicon/sources/color-name-list.tsv`, which the knowledge does not use) for every
concept whose English word it names. People's picks are modelled around that colour with the
concept's own spread; the bot aims with its own knowledge. So a figure below 1 is what the bot
loses when its colour for a word is not the crowd's.

The giving figure has an anchor worked out in the same run: the same list read by a crowd whose
colour for each word is the bot's own moved by a random offset as large as two independent
surveys differ (`GIVER_DOUBT` per axis, seeded): what a giver reaches whose knowledge is as good
as a second survey. It is given by where the bot's colour for a word comes from (a survey, or
the author's estimate) and for lists of 10 words drawn at random, as a given list may be short.

    .venv/bin/python lexicon/evaluate.py [--json]
    .venv/bin/python lexicon/evaluate.py --doubts      # the giver's doubt against the anchor's crowd
    .venv/bin/python lexicon/evaluate.py --apart 20    # the estimated words the two sources part on most
"""

from __future__ import annotations

import json
import math
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from console.bots.aim import GIVER_DOUBT, Aim, aim, expected_points, shortlist_vocabulary  # noqa: E402
from console.bots.knowledge import LANGUAGES, Concept, Knowledge, knowledge  # noqa: E402
from console.bots.words import bare_key, exact_key  # noqa: E402
from console.game.board import ALL_CELLS  # noqa: E402
from console.view.palette import srgb_to_oklab  # noqa: E402


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def references() -> dict[str, tuple[int, int, int]]:
    table = {}
    for line in (ROOT / "lexicon" / "sources" / "color-name-list.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            name, hex_, good = line.split("\t")
            if good == "x":
                table[name] = (int(hex_[1:3], 16), int(hex_[3:5], 16), int(hex_[5:7], 16))
    return table


def crowd_concept(concept: Concept, rgb: tuple[int, int, int]) -> Concept:
    return Concept(concept.id, concept.kind, concept.child, concept.spread, ((srgb_to_oklab(rgb), 1.0),), concept.words)


def moved_concept(concept: Concept, rng: random.Random) -> Concept:
    """`concept` with each colour moved by a random offset as large as two surveys differ."""
    modes = tuple((tuple(v + rng.gauss(0, GIVER_DOUBT) for v in lab), share) for lab, share in concept.modes)
    return Concept(concept.id, concept.kind, concept.child, concept.spread, modes, concept.words)


def estimated_ids() -> set[str]:
    """The concepts whose colour the author of `lexicon/concepts` estimated (a hex value, not a
    survey's or a standard's name)."""
    ids = set()
    for path in (ROOT / "lexicon" / "concepts").glob("*.tsv"):
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#") and line.split("\t")[1].startswith("#"):
                ids.add(line.split("\t")[0])
    return ids


def giving(chooser: Aim, crowd: Aim, words: list[Concept], crowd_words: dict[str, Concept],
           lists: int = 0) -> list[float]:
    """Per target (and, with `lists`, per list of that many words drawn at random for it), the
    crowd's points for the word `chooser` picks from `words` over the best word's."""
    points = {}
    shares = []
    draw = random.Random(lists)
    for target in ALL_CELLS:
        for listed in ([draw.sample(words, 10) for _ in range(lists)] if lists else [words]):
            chosen = chooser.clue(listed, target)
            for concept in listed:
                if (concept.id, target) not in points:
                    points[concept.id, target] = crowd.points_for(crowd_words[concept.id], target)
            best = max(points[c.id, target] for c in listed)
            if best > 0:
                shares.append(points[chosen.id, target] / best)
    return shares


def share_figures(shares: list[float]) -> dict[str, float]:
    return {"mean": round(sum(shares) / len(shares), 3),
            "at_least_three_quarters": round(sum(s >= 0.75 for s in shares) / len(shares), 3)}


def paired_words(k: Knowledge) -> list[tuple[Concept, tuple[int, int, int]]]:
    """The concepts whose English word color-name-list names, each with that list's colour."""
    reference = references()
    return [(c, reference[c.word("en").lower()]) for c in k.concepts if c.word("en").lower() in reference]


def anchor_crowds(words: list[Concept]) -> list[tuple[Aim, dict[str, Concept]]]:
    """Two crowds whose colour for each word is the bot's moved as far as two surveys differ."""
    crowds = []
    for seed in (1, 2):
        draw = random.Random(seed)
        survey = Knowledge(tuple(moved_concept(c, draw) for c in words))
        crowds.append((Aim(survey, "expert"), {c.id: c for c in survey.concepts}))
    return crowds


def doubts(k: Knowledge) -> None:
    """`--doubts`: against the anchor's crowds, a third of the cells, the giver's share of the
    best and its points for a few doubts (the pick by `Aim.points_for` with that doubt)."""
    words = [c for c, _ in paired_words(k)]
    bot = Aim(k, "expert")
    crowds = anchor_crowds(words)
    for doubt in (0.0, GIVER_DOUBT, 0.07, 0.1):
        shares, points = [], []
        for target in ALL_CELLS[::3]:
            chosen = max(words, key=lambda c: (round(bot.points_for(c, target, doubt), 9), -bot.sight(c).spread))
            for reader, by_id in crowds:
                got = reader.points_for(by_id[chosen.id], target)
                best = max(reader.points_for(by_id[c.id], target) for c in words)
                points.append(got)
                if best > 0:
                    shares.append(got / best)
        print(f"doubt {doubt}: share of the best {sum(shares) / len(shares):.3f}, points {sum(points) / len(points):.3f}")


def apart(k: Knowledge, count: int) -> None:
    """`--apart N`: the N estimated words whose colour the knowledge and color-name-list put
    farthest apart (OKLab), each with both colours."""
    estimated = estimated_ids()
    rows = []
    for concept, rgb in paired_words(k):
        if concept.id in estimated:
            distance = min(math.dist(srgb_to_oklab(rgb), lab) for lab, _ in concept.modes)
            rows.append((distance, concept.word("en"), "#%02x%02x%02x" % rgb))
    for distance, word, colour in sorted(rows, reverse=True)[:count]:
        print(f"{distance:.3f}\t{word}\tcolor-name-list {colour}")


def main(argv: list[str]) -> int:
    if "--doubts" in argv:
        doubts(knowledge())
        return 0
    if "--apart" in argv:
        apart(knowledge(), int(argv[argv.index("--apart") + 1]))
        return 0
    figures: dict[str, object] = {}
    before_rss = rss_kib()
    start = time.perf_counter()
    k = knowledge()
    figures["load_s"] = round(time.perf_counter() - start, 3)
    expert, child = aim("expert"), aim("child")  # with their shortlists
    for concept in k.concepts:  # every concept as each level sees it, as a long game would
        expert.sight(concept)
        child.sight(concept)
    figures["rss_added_mib"] = round((rss_kib() - before_rss) / 1024, 1)
    figures["concepts"] = len(k.concepts)
    figures["concepts_per_kind"] = {kind: sum(c.kind == kind for c in k.concepts)
                                    for kind in sorted({c.kind for c in k.concepts})}
    figures["child_concepts"] = sum(c.child for c in k.concepts)
    figures["forms_per_language"] = {lang: sum(len(c.words[lang]) for c in k.concepts) for lang in LANGUAGES}

    paired = paired_words(k)
    crowd_knowledge = Knowledge(tuple(crowd_concept(c, rgb) for c, rgb in paired))
    crowd = Aim(crowd_knowledge, "expert")

    # Guessing: the bot's first cell against the crowd, beside a typical member of the crowd.
    ratios = {"expert": [], "child": []}
    for (concept, _), seen in zip(paired, crowd_knowledge.concepts):
        picks = crowd.picks([seen])
        points = expected_points(picks)
        person = sum(p * e for p, e in zip(picks, points))
        for level, player in (("expert", expert), ("child", child)):
            if level == "child" and not concept.child:
                continue
            ratios[level].append(points[player.guess([concept])[0].index] / person)
    figures["guess_words"] = len(ratios["expert"])
    for level, values in ratios.items():
        figures[f"guess_{level}_vs_person"] = round(sum(values) / len(values), 3)
        figures[f"guess_{level}_at_least_person"] = round(sum(v >= 1 for v in values) / len(values), 3)

    # Giving: for every cell, the word the bot picks from the paired words, as the crowd reads it,
    # against the best word of that list as the crowd reads it; beside it, the anchor (a crowd as
    # far from the bot as two surveys are from each other, two draws).
    own = [c for c, _ in paired]
    crowd_by_id = {c.id: c for c in crowd_knowledge.concepts}
    anchors = anchor_crowds(own)
    estimated = estimated_ids()
    parts = {"all": own, "survey": [c for c in own if c.id not in estimated],
             "estimated": [c for c in own if c.id in estimated]}
    for part, words in parts.items():
        shares = giving(expert, crowd, words, crowd_by_id)
        anchor = [s for reader, by_id in anchors for s in giving(expert, reader, words, by_id)]
        figures[f"clue_share_of_best_{part}"] = dict(share_figures(shares), words=len(words),
                                                     anchor=share_figures(anchor)["mean"])
    shares = giving(expert, crowd, own, crowd_by_id, lists=2)
    anchor = [s for reader, by_id in anchors for s in giving(expert, reader, own, by_id, lists=2)]
    figures["clue_share_of_best_lists_of_10"] = dict(share_figures(shares), anchor=share_figures(anchor)["mean"])

    # Languages: every written form typed in capitals and without its diacritics finds its concept.
    found = {}
    for lang in LANGUAGES:
        hits = total = 0
        for concept in k.concepts:
            for form in concept.words[lang]:
                total += 1
                upper = k.lookup(lang, form.upper())
                bare = k.lookup(lang, bare_key(form))
                same = {exact_key(w) for w in concept.words[lang]}
                hits += all(c is not None and (c.id == concept.id or exact_key(form) in
                                               {exact_key(w) for w in c.words[lang]} or
                                               bool(same & {exact_key(w) for w in c.words[lang]}))
                            for c in (upper, bare))
        found[lang] = round(hits / total, 3)
    figures["forms_found_in_capitals_and_without_diacritics"] = found

    # CPU time per decision (the process's, which other work on the machine does not stretch).
    start = time.process_time()
    for concept in own:
        expert.guess([concept])
    figures["ms_per_guess"] = round((time.process_time() - start) / len(own) * 1000, 2)
    start = time.process_time()
    for concept, other in zip(own, own[1:]):
        expert.guess([concept, other])
    figures["ms_per_guess_of_two_words"] = round((time.process_time() - start) / (len(own) - 1) * 1000, 2)
    vocabulary = shortlist_vocabulary(k, "expert")
    start = time.process_time()
    for target in ALL_CELLS:
        expert.clue(vocabulary, target)
    figures["ms_per_clue_from_vocabulary"] = round((time.process_time() - start) / len(ALL_CELLS) * 1000, 3)
    cold = Aim(k, "expert")  # a list's words weighed one by one, none of them weighed before
    start = time.process_time()
    for target in ALL_CELLS[::48]:
        cold.clue(own, target)
    figures["ms_per_clue_from_list"] = round((time.process_time() - start) / len(ALL_CELLS[::48]) * 1000, 1)
    figures["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if "--json" in argv:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        for name, value in figures.items():
            print(f"{name}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
