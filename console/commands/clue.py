"""`hues-console clue --lang LANG [--second] TEXT`: the phones' clue check, for outside checks.

Prints `ok` (exit status 0), or in one line the rule the clue breaks and the phones' sentence for
it in LANG, which names the word (exit status 2). `--table` prints the words the check knows as
the README's markdown table (a test keeps the README's the same).
"""

from __future__ import annotations

import json
from importlib import resources

from console.commands.common import EXIT_USAGE, UsageError
from console.config.loader import one_line
from console.game.clue import LANGUAGES, WordList, check_clue, word_list


def clue_main(lang: str | None, second: bool, words: list[str], table: bool) -> int:
    if table:
        if lang is not None or second or words:
            raise UsageError("clue --table prints every language's words: it takes no --lang, --second or clue")
        print(clue_table(), end="")
        return 0
    if lang is None or not words:
        raise UsageError(f"clue needs --lang LANG ({', '.join(LANGUAGES)}) and the clue's text, or --table")
    verdict = check_clue(" ".join(words), lang, second=second)
    if verdict.ok:
        print("ok")
        return 0
    print(one_line(f"{verdict.rule}: {refusal_text(lang, verdict.key, verdict.params)}"))
    return EXIT_USAGE


def refusal_text(lang: str, key: str, params: dict[str, object]) -> str:
    """The phones' sentence for a refusal, in their language, its {placeholders} filled."""
    text = json.loads((resources.files("console.web") / "static" / "i18n" / f"{lang}.json").read_text("utf-8"))
    message = text[f"refused.{key}"]
    for name, value in params.items():
        message = message.replace(f"{{{name}}}", str(value))
    return message


def clue_table() -> str:
    """The words each language's check knows, as a markdown table: an entry `stem+e` is the
    stem with each of the endings `+e` lists in the same cell."""
    lines = ["| | colour words (refused) | written together with them (refused) | comparatives (second clue) |",
             "| --- | --- | --- | --- |"]
    for lang in LANGUAGES:
        words = word_list(lang)
        lines.append(f"| {lang} | {_colours(words)} | {', '.join(words.modifiers) or '-'} | "
                     f"{', '.join(words.comparatives)} |")
    return "\n".join(lines) + "\n"


def _colours(words: WordList) -> str:
    cell = "; ".join(f"{colour}: {', '.join(entries)}" for colour, entries in words.colours)
    if words.endings:
        cell += " (" + "; ".join(f"+{name}: {' '.join(e or '∅' for e in endings)}" for name, endings in words.endings) + ")"
    if words.syllable_words:
        cell += f"; a syllable anywhere in a word, except in {', '.join(words.homographs)}"
    return cell
