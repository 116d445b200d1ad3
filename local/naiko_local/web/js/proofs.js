// proofs.js: the committed deck of R10.2, checked in the page (docs/fairness.md). Before the
// first card the server publishes a Merkle root over the 52 salted positions of the shuffled
// deck (`view.hand.commitment`); every card this connection is shown comes with a proof (an
// `update`'s `proofs`, a `snapshot`'s `view.hand.proofs`). The page checks each proof against
// the root, as the terminal client does, and that the card sits where the dealing order puts
// it, as far as the page knows that order.
//
// The bytes are those of layers/engine/naiko/commitment.py (a public contract):
//   leaf i = SHA-256(00 || "naiko-card" || i || card || salt_i)   i, card: one byte each,
//            card = rank * 4 + suit (ranks 2..A = 0..12, suits c d h s = 0..3), salt 32 bytes
//   node   = SHA-256(01 || left || right)
//   tree   = RFC 6962 §2.1 over 52 leaves; a proof is the audit path, checked with the
//            inclusion check of RFC 9162 §2.1.3.2.
// SHA-256 is the browser's own (WebCrypto `crypto.subtle`, async). Browsers offer it only in a
// secure context (https, or http from 127.0.0.1 / localhost): elsewhere the proofs are marked
// "not checked" rather than taken on trust.
//
// Its sentences are in the page's language (js/i18n.js); in English the stored hand's problems
// read as naiko-verify words them.

import { tr } from "./i18n.js";

export const DECK_SIZE = 52;
export const RANKS = "23456789TJQKA";
export const SUITS = "cdhs";
const LEAF_PREFIX = [0x00, ...new TextEncoder().encode("naiko-card")]; // 11 bytes
const NODE_PREFIX = [0x01];
const HEX32 = /^[0-9a-f]{64}$/;
const HOLE_CARDS = { NLHE: 2, NAIKO: 2, PLO: 4 };

/** Whether this page can hash (WebCrypto exists only in a secure context). */
export function canVerify() {
  return Boolean(globalThis.crypto && globalThis.crypto.subtle);
}

/** "Ah" -> 50 (rank * 4 + suit); null for anything that is not a card (rank letter in any case). */
export function cardId(text) {
  if (typeof text !== "string" || text.length !== 2) return null;
  const rank = RANKS.indexOf(text[0].toUpperCase());
  const suit = SUITS.indexOf(text[1].toLowerCase());
  return rank < 0 || suit < 0 ? null : rank * 4 + suit;
}

/** 50 -> "Ah". */
export function cardText(id) {
  return RANKS[id >> 2] + SUITS[id & 3];
}

/** 64 lowercase hex digits -> 32 bytes; null for anything else (as commitment._hash_from_hex). */
export function hashFromHex(text) {
  if (typeof text !== "string" || !HEX32.test(text)) return null;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) bytes[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(parts) {
  const data = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    data.set(part, at);
    at += part.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data));
}

function isInt(value) {
  return typeof value === "number" && Number.isInteger(value);
}

/** The leaf of `card` (0..51) at `position` (0..51) with its 32-byte `salt`: 45 bytes hashed. */
export async function leafHash(position, card, salt) {
  if (!isInt(position) || position < 0 || position >= DECK_SIZE) throw new RangeError(`position ${position}`);
  if (!isInt(card) || card < 0 || card >= DECK_SIZE) throw new RangeError(`card ${card}`);
  if (!(salt instanceof Uint8Array) || salt.length !== 32) throw new RangeError("a salt is 32 bytes");
  return sha256([Uint8Array.from(LEAF_PREFIX), Uint8Array.of(position, card), salt]);
}

/** An inner node: SHA-256(01 || left || right), 65 bytes hashed. */
export async function nodeHash(left, right) {
  return sha256([Uint8Array.from(NODE_PREFIX), left, right]);
}

/**
 * The root that `path` (sibling hashes, bottom-up) leads to from `leaf` at `index` of a tree of
 * `size` leaves, or null when the path cannot belong to that position (too short or too long):
 * RFC 9162 §2.1.3.2, as commitment.root_from_path.
 */
export async function rootFromPath(leaf, index, size, path) {
  if (!(index >= 0 && index < size)) return null;
  let fn = index;
  let sn = size - 1;
  let digest = leaf;
  for (const sibling of path) {
    if (sn === 0) return null; // the path is longer than the leaf's depth
    if (fn & 1 || fn === sn) {
      digest = await nodeHash(sibling, digest); // the sibling is on the left
      if (!(fn & 1)) { // the last node of a level with no right sibling: go up
        while (fn && !(fn & 1)) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      digest = await nodeHash(digest, sibling); // the sibling is on the right
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 ? digest : null;
}

/**
 * Whether `proof` (the wire form: {position, card: "Ah", card_id?: 50, salt, path}) shows its
 * card at its position of the deck committed as `root` (64 lowercase hex digits). Never throws:
 * anything malformed is false (as commitment.CardProof.from_dict + commitment.verify).
 */
export async function verifyProof(root, proof, leafCount = DECK_SIZE) {
  if (!proof || typeof proof !== "object") return false;
  const { position, salt, path } = proof;
  const card = cardId(proof.card);
  if (card === null) return false;
  if ("card_id" in proof && proof.card_id !== card) return false;
  if (!isInt(position) || position < 0 || position >= leafCount) return false;
  const expected = hashFromHex(root);
  const saltBytes = hashFromHex(salt);
  if (!expected || !saltBytes || !Array.isArray(path)) return false;
  if (path.length > Math.floor(Math.log2(leafCount)) + 1) return false; // leafCount.bit_length()
  const siblings = path.map(hashFromHex);
  if (siblings.some((s) => s === null)) return false;
  const reached = await rootFromPath(await leafHash(position, card, saltBytes), position, leafCount, siblings);
  return reached !== null && toHex(reached) === toHex(expected);
}

// -- where each card must be: the dealing order (docs/fairness.md, naiko.verify._schedule) ---

/** The cards of a text such as "AhKd" (null for anything else). */
function cardsOf(text) {
  if (typeof text !== "string" || text.length % 2) return [];
  const out = [];
  for (let i = 0; i < text.length; i += 2) out.push(text.slice(i, i + 2));
  return out;
}

function canonical(text) {
  const id = cardId(text);
  return id === null ? null : cardText(id);
}

/**
 * The deck positions the dealing order gives the cards this page was shown in one hand, built
 * from the hand's public events as they arrive (as naiko-verify does with a stored hand):
 * hole cards from the top, each player's together, in `hand_started.seats_dealt` order; then
 * each Sleeve Swap takes the next card and the board comes off the top; a Peek sees the next
 * card; a hand shown at showdown is at its seat's hole positions or its swap's.
 */
export class DealSchedule {
  constructor(holeCount) {
    this.hole = holeCount;
    this.order = null; // seats dealt, null until the hand's hand_started was seen
    this.lost = false; // events of the hand were missed (a skipped version): stop placing
    this.cursor = 0;
    this.swaps = new Map(); // seat -> positions its swaps drew
    this.expected = new Map(); // card text -> Set of allowed positions
  }

  /** Whether the positions still follow (the deal was seen, no event missed since). */
  get known() {
    return this.order !== null && !this.lost;
  }

  add(card, positions) {
    const text = canonical(card);
    if (text === null) return;
    const now = new Set(positions);
    const before = this.expected.get(text);
    this.expected.set(text, before ? new Set([...before].filter((p) => now.has(p))) : now);
  }

  holeRange(seat) {
    const first = this.order.indexOf(seat) * this.hole;
    return first < 0 ? [] : Array.from({ length: this.hole }, (_, i) => first + i);
  }

  /** Feed one event (of the hand being played, in order). */
  take(e) {
    if (e.kind === "hand_started") {
      this.order = (e.seats_dealt || []).map(Number);
      this.lost = false;
      this.cursor = this.order.length * this.hole;
      this.swaps = new Map();
      this.expected = new Map();
      return;
    }
    if (!this.known) return;
    if (e.kind === "hole_cards") {
      const first = this.order.indexOf(Number(e.seat_index)) * this.hole;
      cardsOf(e.cards).forEach((card, i) => this.add(card, first < 0 ? [] : [first + i]));
    } else if (e.kind === "power_used" && e.power === "sleeve_swap") {
      const seat = Number(e.seat_index);
      this.swaps.set(seat, [...(this.swaps.get(seat) || []), this.cursor]);
      this.cursor += 1;
    } else if (e.kind === "sleeve_swap_result") {
      const seat = Number(e.seat_index);
      this.add(e.received, this.swaps.get(seat) || []);
      for (const card of cardsOf(e.discarded || "")) this.add(card, this.holeRange(seat));
    } else if (e.kind === "peek_result") {
      this.add(e.card, [this.cursor]);
    } else if (e.kind === "board_dealt") {
      for (const card of cardsOf(e.cards)) {
        this.add(card, [this.cursor]);
        this.cursor += 1;
      }
    } else if (e.kind === "showdown") {
      for (const shown of e.hands || []) {
        const seat = Number(shown.seat_index);
        const allowed = [...this.holeRange(seat), ...(this.swaps.get(seat) || [])];
        for (const card of cardsOf(shown.cards)) this.add(card, allowed);
      }
    }
  }
}

/**
 * What the page knows of one hand's proofs: every card's state, kept across messages.
 *
 *   take(message, view, events) registers the message's proofs at once (state "pending") and
 *   returns a Promise of {proved: [{card, position}], failed: [{card, position, reason}]} once
 *   they are checked; status(card) is then {state, position, reason} with state "proved",
 *   "failed", "pending" or "unchecked" (no WebCrypto here), or null for a card without a proof.
 *
 * Checks, for each proof: its hash path leads to the hand's commitment (verifyProof); the card
 * is one this page was shown; when the page saw the hand's deal (its `hand_started`), the card
 * is at the position the dealing order gives it; no position is proved for two cards, no card
 * at two positions. A page that came in mid-hand (a snapshot) does not know the order of the
 * deal: it checks the rest, and that the board's cards come off the deck in order.
 */
export class ProofTracker {
  constructor() {
    this.generation = 0;
    this.reset(null, null, 2);
  }

  reset(handNumber, root, holeCount) {
    this.generation += 1;
    this.hand = handNumber;
    this.root = root;
    this.cards = new Map(); // card text -> {state, position, reason}
    this.failures = []; // every failure of this hand, as sentences
    this.schedule = new DealSchedule(holeCount);
  }

  status(card) {
    return this.root ? this.cards.get(canonical(card)) || null : null;
  }

  /** Whether a face-up card of the hand shown should carry a proof (the hand is committed). */
  expects() {
    return typeof this.root === "string" && this.root.length > 0;
  }

  take(message, view, events = [], { missed = false } = {}) {
    const hand = view?.hand || null;
    const root = typeof hand?.commitment === "string" ? hand.commitment : null;
    const hole = HOLE_CARDS[String(view?.config?.variant || "NLHE").toUpperCase()] || 2;
    const starts = events.map((e, i) => (e.kind === "hand_started" ? i : -1)).filter((i) => i >= 0);
    const current = starts.length ? events.slice(starts[starts.length - 1]) : events;
    if (!hand || hand.number !== this.hand || root !== this.root) this.reset(hand?.number ?? null, root, hole);
    if (missed && !starts.length) this.schedule.lost = true; // events missed: stop placing
    for (const e of current) this.schedule.take(e);
    const raw = message.type === "snapshot" ? hand?.proofs : message.proofs;
    const proofs = Array.isArray(raw) ? raw : [];
    if (!proofs.length) return Promise.resolve({ proved: [], failed: [] });
    const generation = this.generation;
    const jobs = proofs.map((proof) => {
      const card = canonical(proof?.card) || String(proof?.card);
      const position = proof?.position;
      const previous = this.cards.get(card);
      // The same proof again (a snapshot repeats them): checked again, the card keeps its mark
      // meanwhile and a success is not logged twice.
      const repeat = previous && previous.position === position && previous.state !== "pending";
      if (!repeat) this.cards.set(card, { state: "pending", position });
      return { proof, card, position, repeat, previous };
    });
    const shown = shownCards(view);
    return this.check(jobs, shown, generation);
  }

  async check(jobs, shown, generation) {
    const result = { proved: [], failed: [] };
    const hashing = canVerify();
    const verdicts = await Promise.all(jobs.map((job) =>
      this.root && hashing ? verifyProof(this.root, job.proof) : Promise.resolve(false)));
    if (generation !== this.generation) return result; // a new hand began meanwhile
    jobs.forEach((job, i) => {
      if (!this.root) return this.fail(result, job, tr("the hand carries no deck commitment"));
      if (!hashing) {
        this.cards.set(job.card, { state: "unchecked", position: job.position,
          reason: tr("this page cannot hash (WebCrypto needs https or localhost)") });
        return undefined;
      }
      if (!verdicts[i]) return this.fail(result, job, tr("it is not in the deck committed before the deal"));
      const problem = this.placeProblem(job, shown);
      if (problem) return this.fail(result, job, problem);
      if (job.repeat && this.cards.get(job.card)?.state !== "pending") return undefined; // as before
      this.cards.set(job.card, { state: "proved", position: job.position });
      result.proved.push({ card: job.card, position: job.position });
      return undefined;
    });
    return result;
  }

  /** Why a proof that holds is still wrong (its position, or a card the page was not shown). */
  placeProblem(job, shown) {
    const { card, position, previous } = job;
    if (previous && previous.state === "proved" && previous.position !== position) {
      return tr("{card} is proved at positions {first} and {position} (a deck holds each card once)", { card, first: previous.position, position });
    }
    for (const [other, entry] of this.cards) {
      if (other !== card && entry.position === position && entry.state === "proved") {
        return tr("position {position} is proved for both {other} and {card}", { position, other, card });
      }
    }
    const allowed = this.schedule.expected.get(card); // set only while the deal was followed
    if (allowed) {
      if (!allowed.has(position)) {
        const want = [...allowed].sort((a, b) => a - b);
        return tr("it is proved at position {position}, but the dealing order puts it at {want}", { position, want: want.length === 1 ? want[0] : want.join(tr(" or ")) });
      }
      return null;
    }
    if (!shown.has(card)) {
      return tr("a proof of a card this page was not shown");
    }
    const board = shown.board;
    const index = board.indexOf(card);
    if (index > 0) { // the board comes off the deck in order (R1.1): after the cards before it
      const before = this.cards.get(board[index - 1]);
      if (before && before.state === "proved" && !(position > before.position)) {
        return tr("the board card {card} is at position {position}, not after {before} ({at})", { card, position, before: board[index - 1], at: before.position });
      }
    }
    return null;
  }

  fail(result, job, reason) {
    this.cards.set(job.card, { state: "failed", position: job.position, reason });
    const sentence = Number.isInteger(job.position)
      ? tr("Card proof FAILED for {card} at position {position}: {reason} (R10.2).", { card: job.card, position: job.position, reason })
      : tr("Card proof FAILED for {card}: {reason} (R10.2).", { card: job.card, reason });
    if (this.failures.includes(sentence)) return undefined; // the same failure, sent again
    this.failures.push(sentence);
    result.failed.push({ card: job.card, position: job.position, reason, sentence });
    return undefined;
  }
}

/** The face-up cards a view shows its viewer: own and shown hole cards, the board, a peek. */
export function shownCards(view) {
  const set = new Set();
  for (const seat of view?.seats || []) {
    for (const card of cardsOf(seat?.cards || "")) set.add(canonical(card));
  }
  const board = cardsOf(view?.hand?.board || "").map(canonical);
  for (const card of board) set.add(card);
  const peek = view?.hand?.powers?.peek;
  if (peek) set.add(canonical(peek));
  set.board = board;
  return set;
}

// -- a stored hand (get_hand, R10.1): the whole check of naiko-verify --------------------------

/** A wire proof's shape as commitment.CardProof.from_dict checks it: null, or what is wrong. */
function malformed(proof) {
  if (!proof || typeof proof !== "object" || Array.isArray(proof)) return "a proof is an object";
  if (!isInt(proof.position)) return `position must be an int, not ${JSON.stringify(proof.position)}`;
  if (typeof proof.card !== "string") return `card must be the text of a card, not ${JSON.stringify(proof.card)}`;
  const card = cardId(proof.card);
  if (card === null) return `not a card: ${JSON.stringify(proof.card)}`;
  if ("card_id" in proof && proof.card_id !== card) return `card_id ${JSON.stringify(proof.card_id)} is not ${proof.card}`;
  if (typeof proof.salt !== "string") return "salt must be a hex string";
  if (!Array.isArray(proof.path) || proof.path.some((x) => typeof x !== "string")) return "path must be a list of hex strings";
  return null;
}

/**
 * Why a stored hand's events cannot be placed (naiko.verify._schedule raises there), or null:
 * an event that is not an object, a card text that is not cards, a swap that received other
 * than one card, a seat's cards before the deal or of a seat not dealt in.
 */
function malformedEvents(events) {
  const cards = (text, what) => {
    if (typeof text !== "string" || text.length % 2) return `${what} is not a card list: ${JSON.stringify(text)}`;
    const bad = cardsOf(text).find((c) => cardId(c) === null);
    return bad === undefined ? null : `${what}: not a card: ${JSON.stringify(bad)}`;
  };
  let order = [];
  const seat = (value) => (order.includes(Number(value)) ? null : `seat ${JSON.stringify(value)} was not dealt in`);
  for (const e of events) {
    if (!e || typeof e !== "object" || Array.isArray(e)) return `an event is not an object: ${JSON.stringify(e)}`;
    let problem = null;
    if (e.kind === "hand_started") order = (e.seats_dealt || []).map(Number);
    else if (e.kind === "hole_cards") problem = seat(e.seat_index) || cards(e.cards, "hole_cards");
    else if (e.kind === "sleeve_swap_result") {
      problem = seat(e.seat_index) || cards(e.received, "received") || cards(e.discarded, "discarded")
        || (e.received.length === 2 ? null : `a swap received ${JSON.stringify(e.received)}`);
    } else if (e.kind === "peek_result") problem = cards(e.card, "peek_result");
    else if (e.kind === "board_dealt") problem = cards(e.cards, "board_dealt");
    else if (e.kind === "showdown") {
      for (const shown of e.hands || []) {
        problem = problem || seat(shown?.seat_index) || cards(shown?.cards, "showdown");
      }
    }
    if (problem) return problem;
  }
  return null;
}

/**
 * The check `naiko-verify` runs on a stored hand (naiko.verify.check_hand), on the `hand` of a
 * `get_hand` reply, with the same sentences:
 *
 * 1. every proof leads to the hand's `commitment`; no position proved for two cards, no card at
 *    two positions (commitment.verify_hand);
 * 2. every card the reader was shown (the hand's events) has a proof, every proof is of a card
 *    the reader was shown;
 * 3. every card is at the position the dealing order gives it (DealSchedule, on the events).
 *
 * Resolves to {ok, proved, problems, committed, checked, root, cards}: `proved` counts the cards
 * shown (0 unless every check passed, as naiko-verify), `ok` is no problem and at least one
 * card; `committed` false for a hand dealt before R10.2 (no commitment, no proofs);
 * `checked` false when this page cannot hash (then nothing is claimed either way); `cards`
 * maps each card shown or proved to {state: "proved"|"failed", position, reason} for its mark.
 * Never throws: malformed input is a problem.
 */
export async function verifyStoredHand(hand) {
  const out = { ok: false, proved: 0, problems: [], committed: true, checked: true,
    root: null, cards: new Map() };
  const root = hand?.commitment ?? null;
  const raw = hand?.proofs ?? null;
  if (root === null && raw === null) {
    out.committed = false;
    out.problems.push(tr("the hand carries no deck commitment (dealt before R10.2)"));
    return out;
  }
  if (typeof root !== "string" || !Array.isArray(raw)) {
    out.problems.push(tr("the hand's commitment or proofs are malformed"));
    return out;
  }
  out.root = root;
  if (!canVerify()) {
    out.checked = false;
    out.problems.push(tr("this page cannot hash (WebCrypto needs https or localhost)"));
    return out;
  }
  const fail = (card, position, reason) => {
    const before = out.cards.get(card);
    if (before?.state === "failed") return; // its first reason stays
    out.cards.set(card, { state: "failed", position, reason });
  };
  const proofs = [];
  raw.forEach((proof, index) => {
    const problem = malformed(proof);
    if (problem) out.problems.push(tr("proof {index} is malformed: {problem}", { index, problem }));
    else proofs.push({ ...proof, card: canonical(proof.card) });
  });
  // 1. the proofs against the root (commitment.verify_hand)
  if (hashFromHex(root) === null) {
    out.problems.push(tr("the root is not 64 lowercase hex digits: '{root}'", { root })); // Python's repr
  } else {
    const verdicts = await Promise.all(proofs.map((p) => verifyProof(root, p)));
    const cardsAt = new Map();
    const positionsOf = new Map();
    proofs.forEach((p, index) => {
      if (!verdicts[index]) {
        out.problems.push(tr("proof {index} ({card} at position {position}) does not match the root", { index, card: p.card, position: p.position }));
        fail(p.card, p.position, tr("it is not in the deck committed before the deal"));
      }
      if (!cardsAt.has(p.position)) cardsAt.set(p.position, p.card);
      if (cardsAt.get(p.position) !== p.card) {
        out.problems.push(tr("position {position} is claimed for both {other} and {card}", { position: p.position, other: cardsAt.get(p.position), card: p.card }));
        fail(p.card, p.position, tr("position {position} is also proved for {other}", { position: p.position, other: cardsAt.get(p.position) }));
      }
      if (!positionsOf.has(p.card)) positionsOf.set(p.card, p.position);
      if (positionsOf.get(p.card) !== p.position) {
        out.problems.push(tr("{card} is claimed at positions {first} and {position} (a deck holds each card once, R1.1)", { card: p.card, first: positionsOf.get(p.card), position: p.position }));
        fail(p.card, p.position, tr("it is proved at two positions"));
      }
    });
  }
  // 2 and 3. the cards shown, where the dealing order puts them (naiko.verify._schedule)
  const events = hand.events;
  if (!Array.isArray(events)) {
    out.problems.push(tr("the hand's events are malformed: the hand has no events"));
    return out;
  }
  const broken = malformedEvents(events);
  if (broken) {
    out.problems.push(tr("the hand's events are malformed: {problem}", { problem: broken }));
    return out;
  }
  const hole = HOLE_CARDS[String(hand.config?.variant || "NLHE").toUpperCase()] || 2;
  const schedule = new DealSchedule(hole);
  for (const e of events) schedule.take(e || {});
  const byCard = new Map(proofs.map((p) => [p.card, p])); // the last proof of a card, as a dict
  for (const [card, allowed] of schedule.expected) {
    const proof = byCard.get(card);
    if (!proof) {
      out.problems.push(tr("{card} was shown without a proof", { card }));
      fail(card, null, tr("no proof of this card in the stored hand"));
    } else if (!allowed.has(proof.position)) {
      const want = [...allowed].sort((a, b) => a - b);
      const where = want.length === 1 ? String(want[0]) : `[${want.join(", ")}]`;
      out.problems.push(tr("{card} is proved at position {position}, but the dealing order puts it at {where}", { card, position: proof.position, where }));
      fail(card, proof.position, tr("the dealing order puts it at {where}", { where }));
    } else if (!out.cards.has(card)) {
      out.cards.set(card, { state: "proved", position: proof.position });
    }
  }
  for (const proof of proofs) {
    if (!schedule.expected.has(proof.card)) {
      out.problems.push(tr("a proof of {card}, a card the hand never showed its reader", { card: proof.card }));
      fail(proof.card, proof.position, tr("a card the hand never showed its reader"));
    }
  }
  if (!out.problems.length) out.proved = schedule.expected.size;
  out.ok = !out.problems.length && out.proved > 0;
  return out;
}
