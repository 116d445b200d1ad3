// i18n.js: every text the page shows a person, in five languages (docs/web.md, "Languages").
//
// tr(english, params) is the lookup. The catalogues are js/lang/<lang>.js (a module whose default
// export is a JSON object): the English text is the key (as in gettext), each language maps it to
// its own, with the same named parameters ({chips}, {n}…). English needs no import (en.js lists
// every key, for the completeness test tests/unit/test_web_i18n.py). The
// language is chosen by ?lang=, else the picker's last choice (localStorage), else the browser's
// language when served, else English; the WebSocket asks the server for the same one (?lang= at
// the handshake), so its error texts match the page.

export const LANGUAGES = { en: "English", pl: "Polski", pt: "Português", vi: "Tiếng Việt", ro: "Română" };
const STORED = "naiko.lang";

let current = "en";
let catalogue = {};

/** The served language for a tag ("pt-BR" -> "pt"), or null. */
export function served(tag) {
  const base = String(tag || "").toLowerCase().replace("_", "-").split("-")[0];
  return Object.hasOwn(LANGUAGES, base) ? base : null;
}

/** The language this page should speak: ?lang=, the picker's choice, the browser's, English. */
export function chosenLanguage(params) {
  let stored = null;
  try { stored = localStorage.getItem(STORED); } catch { /* storage off */ }
  return served(params.get("lang")) || served(stored) || served(navigator.language) || "en";
}

/** Load *lang*'s catalogue (English: none needed); the page's lang attribute follows. */
export async function loadLanguage(lang) {
  current = served(lang) || "en";
  catalogue = {};
  if (current !== "en") {
    try {
      catalogue = (await import(`./lang/${current}.js`)).default;
    } catch {
      // not served: English it is
    }
  }
  document.documentElement.lang = current;
  return current;
}

export function language() {
  return current;
}

/** Remember *lang* and reload the page in it (the connection is opened again, in that language). */
export function switchLanguage(lang) {
  try { localStorage.setItem(STORED, lang); } catch { /* storage off */ }
  const url = new URL(location.href);
  url.searchParams.set("lang", lang);
  location.href = url.toString();
}

/** The text *english* in the current language, its {name} parameters filled from *params*. */
export function tr(english, params = {}) {
  const template = Object.hasOwn(catalogue, english) ? catalogue[english] : english;
  return template.replace(/\{(\w+)\}/g, (field, name) => (Object.hasOwn(params, name) ? String(params[name]) : field));
}
