// history.js: the hand-history panel (protocol.md §3 hand_history / get_hand, R10.1): your
// hands, newest first, a page at a time; one hand as you saw it (other players' cards only
// where they were shown to the table).

import { narrate } from "./narrate.js";
import { cardFace, chips, fill, h, splitCards } from "./dom.js";

/**
 * @param {HTMLElement} root
 * @param {object} state {hands: object[]|null, next: string|null, hand: object|null, error}
 * @param {object} ctx   {more(), open(table_id, hand_number), close(), back()}
 */
export function renderHistory(root, state, ctx) {
  const body = state.hand ? handDetail(state.hand, ctx) : handList(state, ctx);
  fill(root, 
    h("div", { class: "panel-title" }, "Hand history",
      h("button", { class: "ghost small", dataset: { action: "close-history" }, onclick: () => ctx.close() }, "✕")),
    state.error ? h("p", { class: "error" }, state.error) : null, body);
}

function handList(state, ctx) {
  if (state.hands === null) return h("p", { class: "muted" }, "Loading…");
  if (!state.hands.length) return h("p", { class: "muted" }, "No hands yet: play one!");
  return h("div", {},
    h("ul", { class: "hands" }, state.hands.map((hand) => h("li", {},
      h("button", { class: "link", dataset: { hand: hand.hand_number, table: hand.table_id },
        onclick: () => ctx.open(hand.table_id, hand.hand_number) },
      `${hand.table_name} #${hand.hand_number}`),
      h("span", { class: `net ${hand.net > 0 ? "up" : hand.net < 0 ? "down" : ""}` },
        `${hand.net > 0 ? "+" : ""}${chips(hand.net)}`),
      hand.cancelled ? h("span", { class: "muted small" }, ` cancelled (${hand.cancelled})`) : null))),
    state.next ? h("button", { class: "ghost small", onclick: () => ctx.more() }, "Older hands") : null);
}

function handDetail(hand, ctx) {
  const names = new Map((hand.seats || []).map((s) => [s.seat_index, s.player_id]));
  const nameOf = (seat) => `${names.get(seat) || `seat ${seat}`}${seat === hand.seat_index ? " (you)" : ""}`;
  // Cards as they were shown to you: your hole cards, the board, the showdown.
  const cards = [];
  let board = "";
  const shown = [];
  for (const e of hand.events || []) {
    const mine = e.private_to === hand.seat_index;
    if ((e.kind === "hole_cards" || e.kind === "sleeve_swap_result") && mine) {
      cards.splice(0, cards.length, ...splitCards(e.cards));
    }
    if (e.kind === "board_dealt") board = e.board;
    if (e.kind === "showdown") {
      for (const s of e.hands || []) if (s.seat_index !== hand.seat_index) shown.push(s);
      board = e.board || board;
    }
  }
  const tag = { hand: hand.hand_number, table: hand.table_id };
  return h("div", { class: "hand-detail", dataset: { historyHand: hand.hand_number } },
    h("button", { class: "ghost small", onclick: () => ctx.back() }, "← All hands"),
    h("h3", {}, `${hand.table_name} · hand #${hand.hand_number}`),
    h("div", { class: "muted small" }, `${hand.variant} ${hand.config?.small_blind}/${hand.config?.big_blind}` +
      ` · ${new Date(hand.started_ms).toLocaleString()}`),
    h("div", { class: "row" }, "You: ", cards.map((c) => cardFace(c, { ...tag, small: true }))),
    h("div", { class: "row" }, "Board: ", splitCards(board).map((c) => cardFace(c, { ...tag, small: true }))),
    shown.map((s) => h("div", { class: "row" }, `${nameOf(s.seat_index)}: `,
      splitCards(s.cards).map((c) => cardFace(c, { ...tag, small: true })), ` ${s.hand || ""}`)),
    h("div", { class: "row" }, "Result: ", Object.entries(hand.results || {})
      .map(([p, n]) => `${p} ${n > 0 ? "+" : ""}${n}`).join(", ")),
    h("ol", { class: "log" }, narrate(hand.events, nameOf, hand.seat_index).map((l) => h("li", {}, l))));
}
