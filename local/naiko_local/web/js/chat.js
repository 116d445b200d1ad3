// chat.js: the table's chat panel (R8.9, protocol.md "Table chat"): what was said at the table
// this page watches, the emote buttons, a line to type in, and the players this connection
// muted. Everyone watching the table reads a message at once (there are no private messages);
// the server sends each line with who said it (`player_id`, `seat_index`: null for a
// spectator) and leaves out the players this connection muted (`chat_mute`).
//
// The panel is redrawn with the table; its text field is one element kept across redraws
// (app.js gives focus back to it), so an update arriving while you type loses nothing.

import { h } from "./dom.js";
import { tr } from "./i18n.js";

/** The emote codes (naiko_service.protocol.EMOTES) and how this page draws them. */
export const EMOTES = {
  thumbs_up: "👍", clap: "👏", laugh: "😂", wow: "😮", sad: "😢", angry: "😠",
  thinking: "🤔", gg: "GG", nice_hand: "👌", thanks: "🙏",
};

/** Characters of one chat message (the server normalises it, then counts again). */
export const CHAT_TEXT_MAX = 200;

/** Lines kept per table. */
export const CHAT_LINES = 100;

/** The text field and its form, made once per page and moved into each redraw. */
function chatForm(ctx) {
  if (ctx.ui.chatForm) return ctx.ui.chatForm;
  const input = h("input", { type: "text", class: "chat-input", maxlength: String(2 * CHAT_TEXT_MAX),
    placeholder: tr("Say something to the table"), "aria-label": tr("Chat message"),
    dataset: { chatInput: "1" }, autocomplete: "off" });
  const form = h("form", { class: "chat-form", dataset: { chatForm: "1" } }, input,
    h("button", { type: "submit", class: "primary small", dataset: { action: "chat" } }, tr("Send")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (text.length > CHAT_TEXT_MAX) {
      ctx.ui.chatError = tr("A chat message is at most {n} characters", { n: CHAT_TEXT_MAX });
      ctx.rerender();
      return;
    }
    ctx.ui.chatError = null;
    input.value = "";
    ctx.chat.say(text);
  });
  ctx.ui.chatForm = form;
  return form;
}

/** Who said a line, as the panel shows it. */
function speaker(line, ctx) {
  if (line.player_id === ctx.playerId) return tr("You");
  return line.seat_index === null || line.seat_index === undefined
    ? tr("{name} (watching)", { name: line.player_id }) : line.player_id;
}

/** One line: who, then the text or the emote; a spectator's line has its own mute button
 *  (a seated player is muted from their seat's menu). */
function lineItem(line, ctx) {
  const said = line.emote ? h("span", { class: "emote", dataset: { emote: line.emote } }, EMOTES[line.emote] || line.emote)
    : h("span", { class: "text" }, line.text || "");
  const mine = line.player_id === ctx.playerId;
  const spectator = line.seat_index === null || line.seat_index === undefined;
  return h("li", { dataset: { chatFrom: line.player_id } },
    h("strong", { class: "who" }, speaker(line, ctx), ": "), said,
    !mine && spectator && !ctx.chat.muted.has(line.player_id)
      ? h("button", { class: "ghost tiny", title: tr("Mute {name}", { name: line.player_id }),
        dataset: { action: "chat-mute", player: line.player_id }, onclick: () => ctx.chat.mute(line.player_id) }, "🔇")
      : null);
}

/** The chat panel (a phone's "Chat" panel, a wide screen's side column). */
export function chatPanel(view, ctx) {
  const setting = view.settings?.chat || "on";
  const list = h("ol", { class: "chat-lines" }, ctx.chat.lines.map((line) => lineItem(line, ctx)));
  queueMicrotask(() => { list.scrollTop = list.scrollHeight; });
  const muted = [...ctx.chat.muted];
  const hand = view.hand && !view.hand.complete;
  const note = setting === "apart" && hand
    ? (view.seat_index === null ? tr("During the hand only the spectators read you") : tr("During the hand only the players read you"))
    : null;
  return h("div", { class: "chat-panel", dataset: { chat: setting } },
    h("div", { class: "panel-title" }, tr("Chat"), closeButton(ctx)),
    list,
    setting === "off" ? h("p", { class: "muted small chat-off" }, tr("Chat is off at this table."))
      : h("div", { class: "chat-compose" },
        h("div", { class: "emotes" }, Object.entries(EMOTES).map(([code, symbol]) => h("button", {
          class: "ghost tiny emote-button", title: code, dataset: { emote: code },
          onclick: () => ctx.chat.emote(code) }, symbol))),
        chatForm(ctx),
        note ? h("p", { class: "muted small chat-note" }, note) : null,
        ctx.ui.chatError ? h("p", { class: "small chat-error" }, ctx.ui.chatError) : null),
    muted.length ? h("div", { class: "muted small chat-muted" }, tr("Muted: "),
      muted.map((player) => h("button", { class: "ghost tiny", dataset: { action: "chat-unmute", player },
        title: tr("Unmute {name}", { name: player }), onclick: () => ctx.chat.unmute(player) }, `${player} ✕`))) : null);
}

/** The ✕ of a phone's panel (as table.js draws it). */
function closeButton(ctx) {
  return h("button", { class: "ghost small close-panel", dataset: { action: "close-panel" },
    title: tr("Close"), onclick: () => ctx.togglePanel(null) }, "✕");
}

/** The menu a click on another player's seat opens: mute or unmute their chat. */
export function seatMenu(seat, ctx) {
  if (!seat || seat.player_id === ctx.playerId || ctx.ui.seatMenu !== seat.seat_index) return null;
  const muted = ctx.chat.muted.has(seat.player_id);
  return h("div", { class: "seat-menu", role: "menu", dataset: { seatMenu: seat.seat_index } },
    h("button", { class: "ghost small", role: "menuitem", dataset: { action: muted ? "chat-unmute" : "chat-mute", player: seat.player_id },
      onclick: (event) => {
        event.stopPropagation();
        ctx.ui.seatMenu = null;
        if (muted) ctx.chat.unmute(seat.player_id);
        else ctx.chat.mute(seat.player_id);
      } }, muted ? tr("Unmute chat") : tr("Mute chat")));
}
