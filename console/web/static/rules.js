// /rules: the rules as the console plays them, in the phone's language (the same catalogues and
// switch as the phone's page), and the words the clue check knows in that language and English.
// The words are data: set as text, never as markup.
"use strict";

let clueWords = null;

function showClueWords() {
  const lists = document.getElementById("clue-words-lists");
  if (!clueWords) return;
  const langs = I18n.lang === "en" ? ["en"] : [I18n.lang, "en"];
  lists.replaceChildren(...langs.map((code) => {
    const words = clueWords[code];
    const block = document.createElement("div");
    const title = document.createElement("h3");
    title.textContent = (I18n.languages.find((l) => l.code === code) || { name: code }).name;
    block.append(title);
    const colours = words.colours.map(([colour, entries]) => `${colour}: ${entries.join(", ")}`).join("; ");
    const endings = words.endings.map(([name, list]) => `+${name}: ${list.map((e) => e || "∅").join(" ")}`).join("; ");
    for (const [key, text] of [["rules.words_colours", colours + (endings ? ` (${endings})` : "")],
                               ["rules.words_together", words.together.join(", ") || "-"],
                               ["rules.words_comparatives", words.comparatives.join(", ")]]) {
      const line = document.createElement("p");
      const name = document.createElement("strong");
      name.textContent = t(key) + " ";
      line.append(name, document.createTextNode(text));
      block.append(line);
    }
    return block;
  }));
}

document.addEventListener("DOMContentLoaded", () => {
  I18n.start(document.getElementById("lang"), showClueWords).then(async () => {
    document.body.dataset.lang = I18n.lang;
    clueWords = await (await fetch("/clue-words.json")).json();
    showClueWords();
  });
});
