// main.js: where the page gets its WebSocket URL and its token, then starts the App.
//
//   http://host:port/?player=alice          local mode: the stack hands the page a dev token
//                                           for "alice" (GET /api/dev-token?player=alice)
//   http://host:port/#token=v1....&ws=wss://…  any deployment: the token (and URL) you bring
//   http://host:port/                       a form asks for a name (local) or a token
//   …?lang=pl                                the page and the server's texts in Polish (en, pl,
//                                           pt, vi, ro; the picker in the top bar sets it)
//
// The WebSocket URL defaults to ws://<this page's host>:<ws_port of /api/config>/.

import { App } from "./app.js";
import { fill, h } from "./dom.js";
import { LANGUAGES, chosenLanguage, loadLanguage, switchLanguage, tr } from "./i18n.js";

const params = new URLSearchParams(location.search);
const hash = new URLSearchParams(location.hash.slice(1));

async function config() {
  try {
    const response = await fetch("/api/config");
    if (response.ok) return await response.json();
  } catch {
    // not served by the local stack
  }
  return null;
}

async function devToken(player) {
  const response = await fetch(`/api/dev-token?player=${encodeURIComponent(player)}`);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body.token;
}

/**
 * Local mode (issue 25): the push notifications the stack recorded for *player* while the page
 * was away (GET /api/notifications); a deployment sends them to the player's phone instead.
 */
async function notificationsOf(player) {
  const response = await fetch(`/api/notifications?player=${encodeURIComponent(player)}`);
  if (!response.ok) return { total: 0, notifications: [] };
  return response.json();
}

/** The subject (`sub`) of a v1 or JWT token, for display only (the server checks tokens). */
function subjectOf(token) {
  try {
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(payload + "===".slice((payload.length + 3) % 4))).sub || "?";
  } catch {
    return "?";
  }
}

function login(local) {
  const root = document.getElementById("screen");
  const name = h("input", { type: "text", name: "player", placeholder: tr("your name"), required: true,
    pattern: "[A-Za-z0-9_.@-]{1,64}" });
  const token = h("input", { type: "text", name: "token", placeholder: tr("v1.… token") });
  fill(root, h("div", { class: "login panel" },
    h("h1", {}, "Naiko"),
    local ? h("form", { method: "get" }, h("p", {}, tr("Local mode: pick a player name (10,000 chips on first connect).")),
      name, h("button", { class: "primary", type: "submit" }, tr("Play"))) : null,
    h("form", { onsubmit: (e) => { e.preventDefault(); location.hash = `token=${encodeURIComponent(token.value.trim())}`; location.reload(); } },
      h("p", {}, tr("Or bring a token:")), token, h("button", { type: "submit" }, tr("Connect")))));
}

/** The top bar's static texts in the page's language, and its language picker. */
function localise(lang) {
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = tr(el.dataset.i18n);
  const picker = document.getElementById("lang");
  if (!picker) return;
  fill(picker, Object.entries(LANGUAGES).map(([code, name]) =>
    h("option", { value: code, selected: code === lang }, name)));
  picker.onchange = () => switchLanguage(picker.value);
}

/** *url* asking the server for its texts in *lang* (?lang= at the handshake, protocol.md). */
function withLanguage(url, lang) {
  return `${url}${url.includes("?") ? "&" : "?"}lang=${encodeURIComponent(lang)}`;
}

async function main() {
  const lang = await loadLanguage(chosenLanguage(params));
  localise(lang);
  const local = await config();
  const base = hash.get("ws") || (local
    ? `${location.protocol === "https:" ? "wss" : "ws"}://${location.hostname}:${local.ws_port}${local.ws_path || "/"}`
    : null);
  const wsUrl = base ? withLanguage(base, lang) : null;
  let token = hash.get("token");
  const player = params.get("player");
  if (!token && !(player && local)) {
    login(Boolean(local));
    return;
  }
  if (!wsUrl) {
    document.getElementById("screen").textContent = tr("No WebSocket URL: add #ws=wss://… to the address.");
    return;
  }
  // A local dev token is minted again before each connection (it never goes stale).
  const tokenSource = token ? () => token : () => devToken(player);
  const app = new App({ wsUrl, token: tokenSource, playerId: token ? subjectOf(token) : player,
    notifications: local && player && !token ? () => notificationsOf(player) : null });
  window.naikoApp = app; // for the console; one browser test hands it a doctored update (R10.2)
  const table = hash.get("table"); // a reload comes back to the table it showed
  if (table) {
    app.tableId = table;
    app.screen = "table";
  }
  app.start();
}

main();
