// The phone's languages: one message catalogue per language (/i18n/<lang>.json), the first of the
// browser's languages that has one (else English), and a switch that changes it and remembers the
// choice on this phone. Every string the phone pages show comes from the catalogue: `t(key, args)`
// fills {name} placeholders; elements with data-i18n (text) or data-i18n-label (aria-label) are
// filled by `fillStatic`.
"use strict";

const LANG_KEY = "hues-lang";
const I18n = {
  lang: "en",
  messages: {},
  languages: [],  // [{code, name}] from /i18n/languages.json, each name from its own catalogue

  pick() {
    const codes = this.languages.map((l) => l.code);
    const saved = localStorage.getItem(LANG_KEY);
    if (codes.includes(saved)) return saved;
    for (const tag of navigator.languages || [navigator.language || "en"]) {
      const code = String(tag).toLowerCase().split("-")[0];
      if (codes.includes(code)) return code;
    }
    return "en";
  },

  async start(select, onChange) {
    this.languages = await (await fetch("/i18n/languages.json")).json();
    await this.use(this.pick());
    if (select) {
      select.replaceChildren(...this.languages.map((l) => new Option(l.name, l.code, false, l.code === this.lang)));
      select.onchange = async () => {
        localStorage.setItem(LANG_KEY, select.value);
        await this.use(select.value);
        onChange();
      };
    }
  },

  async use(code) {
    this.messages = await (await fetch(`/i18n/${code}.json`)).json();
    this.lang = code;
    document.documentElement.lang = code;
    fillStatic(document);
  },
};

function t(key, args = {}) {
  const text = I18n.messages[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in args ? String(args[name]) : whole));
}

function fillStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  document.title = t("title");
}

// A list of names as the language joins them: "red, orange and cyan".
function joinNames(names) {
  if (names.length < 2) return names.join("");
  return t("list.join", { first: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}
