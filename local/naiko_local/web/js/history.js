// history.js: the hand-history panel (protocol.md §3 hand_history / get_hand, R10.1): your
// hands, newest first, a page at a time; one hand as you saw it (other players' cards only
// where they were shown to the table), checked against the deck committed before its deal as
// naiko-verify checks it (R10.2, proofs.js verifyStoredHand): a verdict above the cards, a
// ✓/✗ mark on each card as on the live table.

import { narrate, shownName } from "./narrate.js";
import { cardFace, chips, fill, h, splitCards } from "./dom.js";
import { PROOF_MARKS } from "./table.js";
import { tr } from "./i18n.js";

/**
 * @param {HTMLElement} root
 * @param {object} state {hands: object[]|null, next: string|null, hand: object|null, error,
 *   verdict: the open hand's verifyStoredHand result, null while it is being checked}
 * @param {object} ctx   {more(), open(table_id, hand_number), close(), back()}
 */
export function renderHistory(root, state, ctx) {
  const body = state.hand ? handDetail(state.hand, state, ctx) : handList(state, ctx);
  fill(root, 
    h("div", { class: "panel-title" }, tr("Hand history"),
      h("button", { class: "ghost small", dataset: { action: "close-history" }, onclick: () => ctx.close() }, "✕")),
    state.error ? h("p", { class: "error" }, state.error) : null, body);
}

/** A hand's net as the list shows it, always signed: +12, −5, ±0 (never run into the hand
 *  number before it: `#14 · ±0`, not `#140`). */
export function netText(net) {
  return net > 0 ? `+${chips(net)}` : net < 0 ? `−${chips(-net)}` : "±0";
}

function handList(state, ctx) {
  if (state.hands === null) return h("p", { class: "muted" }, tr("Loading…"));
  if (!state.hands.length) return h("p", { class: "muted" }, tr("No hands yet: play one!"));
  return h("div", {},
    h("ul", { class: "hands" }, state.hands.map((hand) => h("li", {},
      h("button", { class: "link", dataset: { hand: hand.hand_number, table: hand.table_id },
        onclick: () => ctx.open(hand.table_id, hand.hand_number) },
      `${hand.table_name} #${hand.hand_number}`),
      h("span", { class: `net ${hand.net > 0 ? "up" : hand.net < 0 ? "down" : "even"}`, dataset: { net: hand.net } },
        ` · ${netText(hand.net)}`),
      hand.cancelled ? h("span", { class: "muted small" }, ` cancelled (${hand.cancelled})`) : null))),
    state.next ? h("button", { class: "ghost small", onclick: () => ctx.more() }, tr("Older hands")) : null);
}

function handDetail(hand, state, ctx) {
  const names = new Map((hand.seats || []).map((s) => [s.seat_index, s.player_id]));
  const nameOf = (seat) => names.get(seat) || `seat ${seat}`;
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
  const verdict = state.verdict ?? null;
  const face = (c) => marked(cardFace(c, { ...tag, small: true }), c, verdict);
  return h("div", { class: "hand-detail", dataset: { historyHand: hand.hand_number } },
    h("button", { class: "ghost small", onclick: () => ctx.back() }, tr("← All hands")),
    h("h3", {}, tr("{table} · hand #{hand}", { table: hand.table_name, hand: hand.hand_number })),
    h("div", { class: "muted small" }, `${hand.variant} ${hand.config?.small_blind}/${hand.config?.big_blind}` +
      ` · ${new Date(hand.started_ms).toLocaleString()}`),
    deckCheck(hand, verdict),
    h("div", { class: "row" }, tr("You: "), cards.map(face)),
    h("div", { class: "row" }, tr("Board: "), splitCards(board).map(face)),
    shown.map((s) => h("div", { class: "row" }, `${shownName(nameOf(s.seat_index))}: `,
      splitCards(s.cards).map(face), ` ${s.hand || ""}`)),
    h("div", { class: "row" }, tr("Result: "), Object.entries(hand.results || {})
      .map(([p, n]) => `${p === names.get(hand.seat_index) ? tr("You") : shownName(p)} ${n > 0 ? "+" : ""}${n}`)
      .join(", ")),
    h("ol", { class: "log" }, narrate(hand.events, nameOf, { seat: hand.seat_index ?? null })
      .map((l) => h("li", {}, l))));
}

/** The verdict of the stored hand's deck check (R10.2), as naiko-verify words it. */
function deckCheck(hand, verdict) {
  const root = typeof hand.commitment === "string" ? `${hand.commitment.slice(0, 16)}…` : "";
  if (hand.commitment == null && hand.proofs == null) {
    return h("div", { class: "deck-check muted small", dataset: { deckCheck: "uncommitted" } },
      tr("Deck: not committed (dealt before R10.2): nothing to check"));
  }
  if (verdict === null) {
    return h("div", { class: "deck-check muted small", dataset: { deckCheck: "pending" } },
      tr("Deck: checking the proofs against commitment {root}", { root }));
  }
  if (!verdict.checked) {
    return h("div", { class: "deck-check muted small", dataset: { deckCheck: "unchecked" } },
      tr("Deck: not checked: {problems}", { problems: verdict.problems.join("; ") }));
  }
  if (verdict.ok) {
    return h("div", { class: "deck-check ok", dataset: { deckCheck: "ok", proved: verdict.proved } },
      verdict.proved === 1 ? tr("✓ 1 card proved against commitment {root}", { root })
        : tr("✓ {n} cards proved against commitment {root}", { n: verdict.proved, root }),
      h("span", { class: "muted small" }, tr(" (each at the position the dealing order gives it)")));
  }
  if (!verdict.problems.length) { // no card shown (a hand cancelled before its deal), as naiko-verify
    return h("div", { class: "deck-check muted small", dataset: { deckCheck: "empty" } },
      tr("Deck: nothing to verify (no card was shown) · commitment {root}", { root }));
  }
  return h("div", { class: "deck-check failed", role: "alert",
    dataset: { deckCheck: "failed", problems: verdict.problems.length } },
  h("strong", {}, tr("✗ Deck check FAILED against commitment {root}", { root: root || tr("(none)") })),
  h("ul", { class: "problems" }, verdict.problems.map((p) => h("li", {}, p))));
}

/** A card of the stored hand with its proof's mark, as the live table marks it. */
function marked(element, card, verdict) {
  const status = verdict?.cards?.get(card);
  if (!verdict || !verdict.checked || !status) return element;
  const title = status.state === "proved"
    ? tr("proved at position {position} against commitment {root}…", { position: status.position, root: verdict.root.slice(0, 16) })
    : tr("proof FAILED: {reason}", { reason: status.reason });
  element.dataset.proof = status.state;
  if (Number.isInteger(status.position)) element.dataset.position = String(status.position);
  element.title = `${card}: ${title}`;
  element.append(h("span", { class: `proof-mark ${status.state}`, title }, PROOF_MARKS[status.state]));
  return element;
}
