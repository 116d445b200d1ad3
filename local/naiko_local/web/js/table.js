// table.js: draws one table from its view (protocol.md §5), the player's controls from the
// prompt (§6), the Naiko powers and Shield windows (§9) and a tournament table's block.
//
// The view is the only input: the page shows exactly what the server let this seat see. Own
// hole cards come from the own seat's `cards`; another seat's cards are drawn face down from
// `card_count` unless the view shows them (`cards` not null: shown at showdown, R4.4).
//
// Countdowns (rings and texts) carry their deadline in data attributes; app.js refreshes them
// every 200 ms without re-drawing the table.
//
// R10.2: when the hand is committed, each face-up card carries its proof's state (proofs.js):
// `data-proof` = proved / failed / pending / unchecked / unproved (no proof received), a small
// mark in its corner with a title saying where and against what it was proved; a failed proof
// puts an alert on the table.

import { POWER_COSTS, POWER_NAMES, shownName } from "./narrate.js";
import { cardBack, cardFace, cardSlot, chips, fill, h, ordinal, ring, splitCards } from "./dom.js";
import { tr } from "./i18n.js";
import { chatPanel, seatMenu } from "./chat.js";

/**
 * The two ways the felt is drawn (naiko.css picks one: `portrait` below 600 px wide, a phone
 * held upright; `wide` otherwise). Seats are spread evenly along an ellipse the shape of the
 * felt (`aspect`: its width over its height). Every seat, bet and dealer button carries its
 * place in both layouts, as CSS custom properties:
 * - wide: `--x`/`--y`, in % of the felt, on the ellipses of radii `seat`, `bet` and `button`
 *   (% of the felt's width and height);
 * - portrait: `--pc`/`--ps`, the cosine and sine of its angle; naiko.css turns them into a
 *   place (the seats' ellipse is the felt less half a seat on each side, so a seat never runs
 *   off the screen, whatever the phone's height).
 */
export const LAYOUTS = {
  wide: { aspect: 2, seat: [47, 46], bet: [30, 24], button: [33, 31] },
  portrait: { aspect: 0.62 },
};

const ARCS = new Map(); // "rx:ry" -> the ellipse's length from the bottom, at each of its steps
const ARC_STEPS = 720;

/** The ellipse's length walked from its bottom (angle π/2, clockwise on the screen) to each of
 *  ARC_STEPS + 1 points. */
function arcLengths(rx, ry) {
  const key = `${rx}:${ry}`;
  if (!ARCS.has(key)) {
    const lengths = [0];
    for (let i = 1; i <= ARC_STEPS; i += 1) {
      const a = Math.PI / 2 + (2 * Math.PI * (i - 1)) / ARC_STEPS;
      const b = Math.PI / 2 + (2 * Math.PI * i) / ARC_STEPS;
      lengths.push(lengths[i - 1] + Math.hypot(rx * (Math.cos(b) - Math.cos(a)), ry * (Math.sin(b) - Math.sin(a))));
    }
    ARCS.set(key, lengths);
  }
  return ARCS.get(key);
}

/** The angle of the point `fraction` (0 to 1) of the way round an ellipse of radii rx, ry,
 *  walked from its bottom: seats at equal fractions are evenly spaced along the rail (equal
 *  angles would bunch them at a wide table's ends, where they stand one above the other). */
export function arcAngle(fraction, rx, ry) {
  const lengths = arcLengths(rx, ry);
  const target = (((fraction % 1) + 1) % 1) * lengths[ARC_STEPS];
  let i = 1;
  while (i < ARC_STEPS && lengths[i] < target) i += 1;
  const share = (target - lengths[i - 1]) / (lengths[i] - lengths[i - 1] || 1);
  return Math.PI / 2 + (2 * Math.PI * (i - 1 + share)) / ARC_STEPS;
}

/** Where seat `position` (0 = bottom centre, clockwise; a fraction lies between two seats) of
 *  `count` sits on an ellipse of radii `radiusX`, `radiusY` (% of the felt), on a felt
 *  `aspect` times as wide as it is high: in % of the felt. Seats are spread evenly along the
 *  seats' ellipse `along` (the same radii unless given), so a seat's bet and button, on smaller
 *  ellipses, lie between it and the centre. */
export function seatPosition(position, count, radiusX = 50, radiusY = 50, aspect = 1,
  along = [radiusX, radiusY]) {
  const angle = arcAngle(position / count, along[0] * aspect, along[1]);
  return { x: 50 + radiusX * Math.cos(angle), y: 50 + radiusY * Math.sin(angle) };
}

/** The style placing a seat (`kind` "seat"), its bet ("bet") or the dealer button ("button")
 *  at `position` of `count`, in both layouts (LAYOUTS). */
export function placed(position, count, kind) {
  const wide = LAYOUTS.wide;
  const [rx, ry] = wide[kind];
  const at = seatPosition(position, count, rx, ry, wide.aspect, wide.seat);
  const angle = arcAngle(position / count, LAYOUTS.portrait.aspect, 1);
  let sine = Math.sin(angle);
  // A bet or button of a seat level with the board goes just above or below it (the board
  // fills the portrait felt's width between the seats).
  if (kind !== "seat" && Math.abs(sine) < 0.3) sine = sine < 0 ? -0.3 : 0.3;
  return { "--x": `${at.x.toFixed(2)}%`, "--y": `${at.y.toFixed(2)}%`,
    "--pc": Math.cos(angle).toFixed(4), "--ps": sine.toFixed(4) };
}

/** The player at a seat of the view as the table names them: "You" for the viewer's own
 *  seat (the id is in the page's header), anybody else by id, quoted when it reads as "you"
 *  (narrate.js); "seat N" for an empty seat. `start`: at the start of a sentence. */
export function nameOf(view, seat, start = true) {
  const entry = (view?.seats || [])[seat];
  if (!entry) return `seat ${seat}`;
  if (entry.seat_index === view.seat_index) return start ? tr("You") : tr("you");
  return shownName(entry.player_id);
}

/** The open Short Anchor window aimed at the viewer, if any. */
export function windowForMe(view) {
  const windows = view?.hand?.powers?.windows || [];
  return windows.find((w) => w.target === view.seat_index && view.seat_index !== null) || null;
}

/**
 * Draw the table.
 * @param {HTMLElement} root  the table screen's container
 * @param {object} view       the newest view
 * @param {object} ctx        {nowMs, send(action, fields), ui (controls' state), showdown,
 *                             offerUntil, inviteCode, version, tableId, log: string[],
 *                             panel: the phone's open panel ("carousel", "log", "chat",
 *                             "host" or null),
 *                             togglePanel(name), rerender(),
 *                             chat: {lines, muted: Set, unread, say, emote, mute, unmute}
 *                             (R8.9, chat.js)}
 */
/** The buy-in the form offers the viewer (not seated): the range the server would accept and
 *  the amount proposed. The table's range and 100 big blinds inside it, unless the view carries
 *  `required_buy_in` (R7.11: a deep-stack table the viewer left less than 30 minutes ago), whose
 *  `min`, what they left with, is proposed. */
export function buyInRange(view) {
  const settings = view?.settings || {};
  const required = view?.required_buy_in || null;
  if (required) return { min: required.min, max: required.max, proposal: required.min, required };
  const big = view?.config?.big_blind || 1;
  const min = settings.min_buy_in || 0;
  const max = settings.max_buy_in || 0;
  return { min, max, proposal: Math.min(max, Math.max(min, 100 * big)), required };
}

export function renderTable(root, view, ctx) {
  fill(root,
    header(view, ctx),
    proofAlert(ctx),
    view.tournament ? tournamentBar(view, ctx) : null,
    view.tournament ? dealPanel(view, ctx) : null,
    h("div", { class: "table-main" },
      h("div", { class: "felt-area" }, felt(view, ctx)),
      h("div", { class: "side" }, naikoPanel(view, ctx), logPanel(ctx), ctx.chat ? chatPanel(view, ctx) : null)),
    controls(view, ctx),
  );
}

// -- a phone's panels ----------------------------------------------------------------------

/**
 * On a phone (naiko.css, below 600 px wide) the Carousel, the log, the chat and the host's bar are panels
 * that open on demand, one at a time, above the action bar: these buttons open and close them
 * (the page's `body[data-panel]`, kept by app.js). A wider screen shows them all the time and
 * hides the buttons. The Carousel's button counts the powers the prompt lets you use now.
 */
function panelButtons(view, ctx) {
  const usable = (view.prompt?.powers || []).length;
  const button = (panel, label, extra = null) => h("button", {
    class: "ghost small", dataset: { panelButton: panel },
    "aria-pressed": ctx.panel === panel ? "true" : "false",
    onclick: () => ctx.togglePanel(panel),
  }, label, extra);
  return h("div", { class: "panel-buttons" },
    view.hand?.powers ? button("carousel", tr("Carousel"),
      usable ? h("span", { class: "badge usable", title: tr("powers you can use now") }, String(usable)) : null) : null,
    button("log", tr("Log")),
    ctx.chat ? button("chat", tr("Chat"), ctx.chat.unread
      ? h("span", { class: "badge usable", title: tr("new chat lines") }, String(Math.min(ctx.chat.unread, 99))) : null) : null,
    hosting(view, ctx) ? button("host", tr("Host")) : null);
}

/** Whether the viewer hosts this private table (R7.12): the host's bar is drawn. */
function hosting(view, ctx) {
  const settings = view.settings || {};
  return settings.kind === "private" && settings.host === ctx.playerId && !(view.room || {}).closed;
}

/** The ✕ of a phone's panel (hidden on a wide screen, where the panels stay open). */
function closePanel(ctx) {
  return h("button", { class: "ghost small close-panel", dataset: { action: "close-panel" },
    title: tr("Close"), onclick: () => ctx.togglePanel(null) }, "✕");
}

// -- header ----------------------------------------------------------------------------------

function header(view, ctx) {
  const settings = view.settings || {};
  const config = view.config || {};
  const hand = view.hand;
  const kind = settings.kind === "private" ? "private" : settings.kind === "tournament" ? "tournament" : "cash";
  const room = view.room || {};
  const flags = [];
  if (room.paused) flags.push("PAUSED by the host");
  if (room.closing) flags.push("CLOSING after this hand");
  if (room.closed) flags.push("CLOSED");
  const commitment = hand?.commitment;
  const commitText = typeof commitment === "string" ? commitment
    : commitment && typeof commitment === "object" ? (commitment.root || JSON.stringify(commitment)) : null;
  return h("div", { class: "table-header" },
    h("button", { class: "ghost", dataset: { action: "lobby" }, onclick: () => ctx.toLobby() }, "← Lobby"),
    h("div", { class: "title" },
      h("strong", { class: "table-name" }, settings.name || view.table_id),
      h("span", { class: "badge" }, config.variant || ""),
      h("span", { class: "badge" }, kind),
      h("span", { class: `muted${view.tournament ? " in-tournament" : ""}` }, ` blinds ${config.small_blind}/${config.big_blind}` +
        (config.ante ? ` ante ${config.ante}` : "")),
      kind !== "tournament" ? h("span", { class: `muted buy-in-range${view.seat_index !== null ? " seated" : ""}` },
        ` · buy-in ${settings.min_buy_in}-${settings.max_buy_in}`) : null),
    h("div", { class: "muted hand-no" },
      hand ? tr("Hand #{hand} · {street}", { hand: hand.number, street: hand.complete ? tr("over") : streetName(hand.street) }) : tr("no hand yet"),
      ` · v${ctx.version}`),
    commitText ? h("div", { class: "commitment", title: tr("Deck commitment (R10.2): {root}", { root: commitText }),
      dataset: { commitment: commitText } }, tr("deck commitment {root}…", { root: commitText.slice(0, 12) }),
      proofSummary(ctx)) : null,
    room.invite_code ? h("div", { class: "badge invite" }, `Invite code ${room.invite_code}`) : null,
    flags.length ? h("div", { class: "flag" }, flags.join(" · ")) : null,
    panelButtons(view, ctx),
  );
}

/** The street's name in the page's language. */
function streetName(street) {
  return { preflop: tr("preflop"), flop: tr("Flop"), turn: tr("Turn"), river: tr("River") }[street] || street;
}

// -- the committed deck (R10.2) ----------------------------------------------------------------

export const PROOF_MARKS = { proved: "✓", failed: "✗", pending: "…", unchecked: "–", unproved: "?" };

/** Mark a face-up card with the state of its proof, when the hand is committed. */
function proved(element, card, ctx) {
  const tracker = ctx.proofs;
  if (!tracker || !tracker.expects()) return element;
  const status = tracker.status(card);
  const state = status ? status.state : "unproved";
  const root = `${tracker.root.slice(0, 16)}…`;
  const title = {
    proved: tr("proved at position {position} against commitment {root}", { position: status?.position, root }),
    failed: tr("proof FAILED: {reason}", { reason: status?.reason }),
    pending: tr("its proof is being checked"),
    unchecked: tr("proof not checked: {reason}", { reason: status?.reason }),
    unproved: tr("no proof received for this card (commitment {root})", { root }),
  }[state];
  element.dataset.proof = state;
  if (Number.isInteger(status?.position)) element.dataset.position = String(status.position);
  element.title = `${card}: ${title}`;
  element.append(h("span", { class: `proof-mark ${state}`, title }, PROOF_MARKS[state]));
  return element;
}

/** "· 5 cards proved" next to the commitment (every proof this hand that held). */
function proofSummary(ctx) {
  const tracker = ctx.proofs;
  if (!tracker || !tracker.expects()) return null;
  const count = [...tracker.cards.values()].filter((c) => c.state === "proved").length;
  return h("span", { class: "proof-count", dataset: { proved: count } },
    ` · ${count} card${count === 1 ? "" : "s"} proved`);
}

/** A failed proof: said on the table, above the felt, until the hand ends. */
function proofAlert(ctx) {
  const failures = ctx.proofs?.failures || [];
  if (!failures.length) return null;
  return h("div", { class: "proof-alert", role: "alert", dataset: { proofFailures: failures.length } },
    h("strong", {}, "⚠ Deck check FAILED: "),
    "a card does not match the deck the server committed to before the deal. ",
    h("ul", {}, failures.slice(-4).map((f) => h("li", {}, f))));
}

// -- the tournament block --------------------------------------------------------------------

function tournamentBar(view, ctx) {
  const t = view.tournament;
  const next = t.next_level;
  const blinds = (l) => `${chips(l.small_blind)}/${chips(l.big_blind)}` +
    (l.ante ? (l.ante_mode === "big_blind" ? ` BB ante ${chips(l.ante)}` : ` ante ${chips(l.ante)}`) : "");
  const prizes = (t.payouts || []).map((p, i) => `${ordinal(i + 1)} ${chips(p)}`).join(" · ");
  return h("div", { class: "tournament-bar", dataset: { tournament: t.tournament_id } },
    h("span", { class: "level" }, tr("Level {level}", { level: t.level })),
    h("span", { class: "blinds" }, tr("Blinds {blinds}", { blinds: blinds(t) })),
    t.level_ends_ms ? h("span", {}, tr("Next level in "),
      h("span", { class: "countdown", dataset: { countdownMs: t.level_ends_ms, format: "clock",
        expired: tr("next hand") } }, "")) : h("span", {}, tr("Last level")),
    next ? h("span", { class: "muted next-level" }, tr("then {blinds} ({minutes} min)", { blinds: blinds(next), minutes: next.minutes })) : null,
    h("span", {}, tr("Players {left}/{entrants}", { left: t.players_left, entrants: t.entrants })),
    h("span", { class: "prizes" }, tr("Prizes: {prizes}", { prizes: prizes || "—" })),
    t.multiplier ? h("span", { class: "badge spin" }, `Spin ×${t.multiplier}`) : null,
    t.bounty ? h("span", { class: "badge bounty", dataset: { tournamentBounty: t.bounty } },
      tr("Knockout: bounty {bounty} an entry", { bounty: chips(t.bounty) })) : null,
    t.first_hand_ms && t.first_hand_ms > ctx.nowMs ? h("span", { class: "flag" }, tr("First hand in "),
      h("span", { class: "countdown", dataset: { countdownMs: t.first_hand_ms, format: "s" } }, "")) : null,
  );
}

// -- a deal at the final table (R9.16) ---------------------------------------------------------

/**
 * Whether this seat may ask for a deal now: seated at a table that holds every player left, no
 * deal made or offered, not asked yet, and the tournament's terms (the lobby's, when the page
 * read them) publishing deals for this many players. The server decides (`not_final_table`,
 * `deals_off`, …): this only keeps the button away where it would surely be refused.
 */
export function canAskDeal(view, terms) {
  const t = view.tournament;
  if (!t || view.seat_index === null || view.seat_index === undefined || (view.room || {}).closed) return false;
  const deal = t.deal || { asked: [], offer: null, made: null };
  const me = view.seats[view.seat_index];
  if (!me || deal.made || deal.offer || (deal.asked || []).includes(me.player_id)) return false;
  const seated = view.seats.filter((s) => s).length;
  if (t.players_left !== seated) return false;
  if (terms && !terms.deals) return false;
  return !terms || t.players_left <= terms.deals.max_players;
}

/**
 * The deal panel: who asked; the offer (every player's stack, ICM and chip-count amounts and
 * answer, what is kept for the winner, the deal clock) with Accept ICM / Accept chip count /
 * Decline for a player of the offer; the split made. Nothing while no deal is under way, but
 * the *Ask for a deal* button when canAskDeal.
 */
function dealPanel(view, ctx) {
  const t = view.tournament;
  const deal = t.deal;
  const ask = canAskDeal(view, ctx.tournamentTerms ? ctx.tournamentTerms(t.tournament_id) : null)
    ? h("button", { class: "small", dataset: { action: "ask_deal" }, onclick: () => ctx.send("ask_deal", {}) },
      tr("Ask for a deal")) : null;
  if (!deal) return ask ? h("div", { class: "deal-panel", dataset: { deal: "none" } }, ask) : null;
  const who = (player) => player === ctx.playerId ? tr("You") : shownName(player);
  const splitName = (split) => split === "icm" ? tr("ICM") : tr("chip count");
  if (deal.made) {
    return h("div", { class: "deal-panel", dataset: { deal: "made", split: deal.made } },
      h("strong", {}, tr("Deal made ({split}): play goes on for what is kept", { split: splitName(deal.made) })));
  }
  const offer = deal.offer;
  if (!offer) {
    return h("div", { class: "deal-panel", dataset: { deal: "asked" } },
      h("span", {}, tr("A deal is asked for by {players}", { players: (deal.asked || []).map(who).join(", ") })), ask);
  }
  const me = view.seat_index !== null && view.seat_index !== undefined ? view.seats[view.seat_index]?.player_id : null;
  const mine = me && offer.players.includes(me) ? offer.accepted?.[me] || null : undefined;
  const rows = offer.players.map((player, i) => {
    const answer = offer.accepted?.[player];
    return h("tr", { dataset: { dealPlayer: player } }, h("td", {}, who(player)), h("td", {}, chips(offer.stacks[i])),
      h("td", { dataset: { split: "icm" } }, chips(offer.icm[i])), h("td", { dataset: { split: "chip_count" } }, chips(offer.chip_count[i])),
      h("td", { dataset: { answer: answer || "" } }, answer ? tr("accepts {split}", { split: splitName(answer) }) : "…"));
  });
  const answer = (split) => h("button", { class: mine === split ? "primary small" : "small", dataset: { action: "accept_deal", split },
    "aria-pressed": mine === split ? "true" : "false",
    onclick: () => ctx.send("accept_deal", { offer_id: offer.offer_id, split }) },
  split === "icm" ? tr("Accept ICM") : tr("Accept chip count"));
  return h("div", { class: "deal-panel", dataset: { deal: "offered", offer: offer.offer_id } },
    h("div", {}, h("strong", {}, tr("Deal offered")), " ",
      h("span", { class: "countdown", dataset: { countdownMs: offer.ends_ms, format: "s" } }, ""), " ",
      h("span", { class: "muted" }, offer.kept ? tr("{kept} kept for the winner", { kept: chips(offer.kept) })
        : tr("nothing kept: the tournament ends with the deal"))),
    h("table", { class: "levels deal-offer" },
      h("thead", {}, h("tr", {}, [tr("Player"), tr("Stack"), tr("ICM"), tr("Chip count"), tr("Answer")].map((x) => h("th", {}, x)))),
      h("tbody", {}, rows)),
    mine !== undefined ? h("div", { class: "row-actions" }, answer("icm"), answer("chip_count"),
      h("button", { class: "ghost small", dataset: { action: "decline_deal" },
        onclick: () => ctx.send("decline_deal", { offer_id: offer.offer_id }) }, tr("Decline"))) : null);
}

// -- the felt --------------------------------------------------------------------------------

function felt(view, ctx) {
  const count = view.config?.seat_count || view.seats.length;
  const base = view.seat_index ?? 0; // the viewer sits at the bottom
  const hand = view.hand;
  const winners = new Set();
  for (const award of hand?.complete ? hand.awards || [] : []) {
    for (const seat of Object.keys(award.winners || {})) winners.add(Number(seat));
  }
  const table = h("div", { class: "felt", dataset: { seats: count } });
  view.seats.forEach((seat, index) => {
    const position = (index - base + count) % count;
    table.append(seatElement(view, seat, index, placed(position, count, "seat"), winners, ctx));
    if (seat && seat.in_hand && seat.bet > 0) {
      table.append(h("div", { class: "bet", style: placed(position, count, "bet"),
        dataset: { betSeat: index } }, h("span", { class: "chip" }), chips(seat.bet)));
    }
    if (hand && hand.button === index) {
      table.append(h("div", { class: "dealer", title: tr("Button"), style: placed(position + 0.32, count, "button") }, "D"));
    }
  });
  table.append(centre(view, ctx));
  return table;
}

function seatElement(view, seat, index, style, winners, ctx) {
  if (!seat) {
    const canSit = view.seat_index === null && !view.tournament && !(view.room || {}).closed;
    return h("div", { class: "seat empty", style, dataset: { seat: index } },
      canSit ? h("button", { class: "ghost small", dataset: { action: "sit-here", seat: index },
        onclick: () => ctx.join(index) }, tr("Sit here")) : h("span", { class: "muted" }, tr("empty")));
  }
  const hand = view.hand;
  const me = index === view.seat_index;
  const actor = hand && !hand.complete && hand.actor === index;
  const shown = seat.cards ? splitCards(seat.cards) : [];
  const cards = h("div", { class: "seat-cards" });
  if (seat.in_hand) {
    if (shown.length) {
      shown.forEach((card) => cards.append(proved(cardFace(card, { hand: hand?.number }), card, ctx)));
    } else {
      for (let i = 0; i < (seat.card_count || 0); i += 1) cards.append(cardBack());
    }
  }
  const status = [];
  if (seat.in_hand && seat.folded) status.push(tr("folded"));
  if (seat.in_hand && seat.all_in) status.push(tr("ALL-IN"));
  if (seat.sitting_out) status.push(tr("sitting out"));
  if ((view.disconnected || []).includes(seat.player_id)) status.push(tr("offline"));
  const bank = timeBankOf(seat);
  if (!view.tournament && !hand?.complete && seat.owes_big && !seat.in_hand && hand) {
    status.push(seat.entry === "post" ? tr("posts next hand") : tr("waits for BB"));
  }
  const showdownHand = ctx.showdown && hand && ctx.showdown.hand === hand.number
    ? ctx.showdown.hands[index] : null;
  const plate = h("div", { class: "plate" },
    actor ? ringFor(hand.actor_deadline_ms, seat.time_bank_running ? seat.time_bank_ms
      : view.settings?.decision_ms || 20000) : null,
    h("div", { class: "name" }, nameOf(view, index),
      seat.is_bot ? h("span", { class: "bot", title: tr("a BOT player (R8.4)") }, "BOT") : null),
    h("div", { class: "stack", dataset: { stack: seat.stack } }, chips(seat.stack)),
    seat.destellos !== undefined ? h("div", { class: "destellos", title: tr("{n} Destellos", { n: seat.destellos }),
      dataset: { destellos: seat.destellos } }, "✦".repeat(seat.destellos) + "·".repeat(Math.max(0, 3 - seat.destellos))) : null,
    bank,
    seat.bounty ? h("div", { class: "bounty", title: tr("bounty on this player (R9.13)"),
      dataset: { bounty: seat.bounty } }, `🎯 ${chips(seat.bounty)}`) : null,
  );
  const blindTag = hand && !hand.complete
    ? (hand.small_blind_seat === index ? "SB" : hand.big_blind_seat === index ? "BB" : null) : null;
  // R8.9: another player's plate opens their seat's menu (mute or unmute their chat)
  const menu = !me && !seat.is_bot && ctx.chat;
  if (menu) {
    plate.classList.add("has-menu");
    plate.title = tr("{name}: click to mute or unmute their chat", { name: seat.player_id });
    plate.addEventListener("click", () => {
      ctx.ui.seatMenu = ctx.ui.seatMenu === index ? null : index;
      ctx.rerender();
    });
    if (ctx.chat.muted.has(seat.player_id)) {
      plate.querySelector(".name")?.append(h("span", { class: "muted-mark", title: tr("chat muted") }, " 🔇"));
    }
  }
  return h("div", {
    class: `seat${me ? " me" : ""}${actor ? " actor" : ""}${seat.folded ? " folded" : ""}` +
      `${winners.has(index) ? " winner" : ""}${seat.is_bot ? " is-bot" : ""}`,
    style, dataset: { seat: index, player: seat.player_id, me: me ? "1" : null },
  }, cards, plate, menu ? seatMenu({ ...seat, seat_index: index }, ctx) : null,
  h("div", { class: "seat-status" }, blindTag ? h("span", { class: "tag" }, blindTag) : null,
    status.join(" · "), showdownHand ? h("span", { class: "made" }, showdownHand) : null));
}

/** R8.7: a seat's time bank (shown to the table), or null at a table without one. */
function timeBankOf(seat) {
  if (seat.time_bank_ms === undefined) return null;
  const seconds = Math.floor((seat.time_bank_ms || 0) / 1000);
  return h("div", { class: `time-bank${seat.time_bank_running ? " running" : ""}`,
    title: tr("time bank (R8.7)"), dataset: { timeBank: seat.time_bank_ms, running: seat.time_bank_running ? "1" : null } },
  seat.time_bank_running ? tr("⏳ time bank {n} s", { n: seconds }) : tr("⏳ {n} s", { n: seconds }));
}

/** A countdown ring: the share of the clock left, and the seconds in its middle. */
function ringFor(deadlineMs, totalMs, className = "turn-ring", title = tr("time to act")) {
  const svg = ring("ring");
  svg.dataset.deadline = deadlineMs;
  svg.dataset.total = totalMs;
  return h("div", { class: className, title }, svg,
    h("span", { class: "countdown", dataset: { countdownMs: deadlineMs, format: "n" } }, ""));
}

function centre(view, ctx) {
  const hand = view.hand;
  const board = h("div", { class: "board", dataset: { hand: hand?.number ?? "" } });
  const cards = splitCards(hand?.board || "");
  cards.forEach((card) => board.append(proved(cardFace(card, { hand: hand.number, extra: "board-card" }), card, ctx)));
  for (let i = cards.length; i < 5; i += 1) board.append(cardSlot());
  const pot = hand ? (hand.pot || 0) + (hand.bets_total || 0) : 0;
  const lines = [];
  if (hand && hand.complete) {
    for (const award of hand.awards || []) {
      const who = Object.entries(award.winners || {}).map(([seat, amount], i) =>
        `${nameOf(view, Number(seat), i === 0)} ${Number(seat) === view.seat_index ? "win" : "wins"} ${chips(amount)}`)
        .join(", ");
      lines.push(h("div", { class: "award" }, `★ ${who}`));
    }
  }
  const waiting = !hand || hand.complete ? waitingText(view) : null;
  return h("div", { class: "centre" },
    hand && !hand.complete ? h("div", { class: "pot", dataset: { pot } }, `Pot ${chips(pot)}`) : null,
    hand && hand.pot && hand.bets_total ? h("div", { class: "muted small pot-parts" }, `(${chips(hand.pot)} + ${chips(hand.bets_total)} in bets)`) : null,
    board, lines, waiting ? h("div", { class: "muted waiting" }, waiting) : null);
}

function waitingText(view) {
  const room = view.room || {};
  if (room.closed) return view.tournament ? tr("The tournament is over") : tr("The table is closed");
  if (room.paused) return tr("No new hand while the table is paused");
  const seated = view.seats.filter(Boolean).length;
  const needed = view.settings?.min_players || 2;
  if (!view.hand && seated < needed) return tr("Waiting for players ({seated} seated, {needed} to start)", { seated, needed });
  return view.hand ? tr("Next hand in a moment…") : tr("The first hand is about to be dealt");
}

// -- Naiko powers ----------------------------------------------------------------------------

function naikoPanel(view, ctx) {
  const powers = view.hand?.powers;
  if (!powers) return null;
  const prompt = view.prompt;
  const mine = String(view.seat_index);
  const usedByMe = new Set((powers.used || {})[mine] || []);
  const can = new Set(prompt?.powers || []);
  const myCards = splitCards((view.seats[view.seat_index] || {}).cards || "");
  const carousel = h("div", { class: "carousel" }, (powers.carousel || []).map((power) => {
    const buttons = [];
    if (power === "peek") {
      buttons.push(powerButton(tr("Peek"), can.has("peek"), { power: "peek" },
        () => ctx.send("use_power", { power: "peek" })));
    } else if (power === "sleeve_swap") {
      myCards.slice(0, 2).forEach((card, i) => buttons.push(powerButton(tr("Swap {card}", { card }),
        can.has("sleeve_swap"), { power: "sleeve_swap", cardIndex: i },
        () => ctx.send("use_power", { power: "sleeve_swap", card_index: i }))));
    } else if (power === "short_anchor") {
      for (const target of prompt?.anchor_targets || []) {
        buttons.push(powerButton(tr("Anchor {player}", { player: nameOf(view, target) }), can.has("short_anchor"),
          { power: "short_anchor", target },
          () => ctx.send("use_power", { power: "short_anchor", target_seat: target })));
      }
    }
    return h("div", { class: `power${usedByMe.has(power) ? " used" : ""}`, dataset: { carousel: power } },
      h("div", { class: "power-name" }, tr(POWER_NAMES[power] || power),
        h("span", { class: "cost" }, ` ${"✦".repeat(POWER_COSTS[power] || 0)}`)),
      usedByMe.has(power) ? h("div", { class: "muted small" }, tr("used")) : null,
      power === "seal_shield" ? h("div", { class: "muted small" }, tr("answers a Short Anchor")) : null,
      buttons);
  }));
  const anchors = Object.entries(powers.anchors || {}).map(([seat, a]) =>
    h("div", { class: "small" }, `⚓ ${nameOf(view, a.by)} → ${nameOf(view, Number(seat), false)}: ${a.state}`));
  const others = (powers.windows || []).filter((w) => w.target !== view.seat_index).map((w) =>
    h("div", { class: "small window-other" }, tr("{player} may shield ", { player: nameOf(view, w.target) }),
      h("span", { class: "countdown", dataset: { countdownMs: w.deadline_ms, format: "s" } }, "")));
  const peek = powers.peek ? h("div", { class: "peek" }, tr("Your peek: "),
    proved(cardFace(powers.peek, { hand: view.hand.number, small: true }), powers.peek, ctx), tr(" comes next")) : null;
  return h("div", { class: "naiko-panel" },
    h("div", { class: "panel-title" }, tr("Carousel"),
      h("span", { class: "muted small" }, tr(" powers this round {n}/3", { n: powers.round_activations })), closePanel(ctx)),
    carousel, peek, anchors, others, shieldWindow(view, ctx));
}

function powerButton(label, enabled, data, onclick) {
  return h("button", { class: "power-button", disabled: !enabled, dataset: data, onclick }, label);
}

/** The Shield window aimed at me: its own 8-second countdown (R6.5), Shield or let it apply. */
function shieldWindow(view, ctx) {
  const w = windowForMe(view);
  if (!w) return null;
  const total = view.config?.shield_window_ms || 8000;
  return h("div", { class: "shield-window", dataset: { window: w.window_id } },
    ringFor(w.deadline_ms, total, "turn-ring shield-ring", "the Shield window (R6.5)"),
    h("div", {}, h("strong", {}, tr("{player}'s Short Anchor aims at you", { player: nameOf(view, w.attacker) })),
      h("div", { class: "small" }, tr("Seal Shield cancels it (1 ✦); play does not pause. "),
        h("span", { class: "countdown", dataset: { countdownMs: w.deadline_ms, format: "s" } }, ""))),
    h("div", { class: "shield-buttons" },
      h("button", { class: "primary", dataset: { action: "shield" }, disabled: !view.hand.powers.can_shield,
        onclick: () => ctx.send("shield", {}) }, tr("Seal Shield ✦")),
      h("button", { dataset: { action: "pass_window" }, onclick: () => ctx.send("pass_window", {}) }, tr("Let it apply"))));
}

// -- the log ---------------------------------------------------------------------------------

function logPanel(ctx) {
  const list = h("ol", { class: "log" }, ctx.log.slice(-60).map((line) => h("li", {}, line)));
  queueMicrotask(() => { list.scrollTop = list.scrollHeight; });
  return h("div", { class: "log-panel" }, h("div", { class: "panel-title" }, tr("Table"), closePanel(ctx)), list);
}

// -- the controls ----------------------------------------------------------------------------

function controls(view, ctx) {
  const prompt = view.prompt;
  const bar = h("div", { class: "controls" });
  if (prompt && prompt.seat_index === view.seat_index) {
    bar.append(actionBar(view, prompt, ctx));
  } else {
    bar.append(seatBar(view, ctx));
  }
  if (hosting(view, ctx)) bar.append(hostBar(view, ctx));
  return bar;
}

/** The host's controls at a private table (R7.12): invite code, invitations, BOTs, pause, close. */
function hostBar(view, ctx) {
  const room = view.room || {};
  const invitee = h("input", { type: "text", placeholder: tr("player id"), size: 10, dataset: { invitee: "1" } });
  return h("div", { class: "hostbar" },
    h("span", { class: "muted small" }, tr("Host:")), closePanel(ctx),
    h("button", { class: "ghost small", dataset: { action: "create_invite_code" },
      onclick: () => ctx.send("create_invite_code", {}) }, room.invite_code ? tr("New invite code") : tr("Make an invite code")),
    room.invite_code ? h("button", { class: "ghost small", dataset: { action: "revoke_invite_code" },
      onclick: () => ctx.send("revoke_invite_code", {}) }, tr("Revoke the code")) : null,
    invitee, h("button", { class: "ghost small", dataset: { action: "invite" },
      onclick: () => invitee.value.trim() && ctx.send("invite", { player_id: invitee.value.trim() }) }, tr("Invite")),
    view.settings.bots ? h("button", { class: "ghost small", dataset: { action: "host_add_bot" },
      onclick: () => ctx.send("host_add_bot", {}) }, tr("Add a BOT")) : null,
    h("button", { class: "ghost small", dataset: { action: "host_pause" },
      onclick: () => ctx.send("host_pause", { paused: !room.paused }) }, room.paused ? tr("Resume") : tr("Pause")),
    h("button", { class: "ghost small", dataset: { action: "host_close" },
      onclick: () => ctx.send("host_close", {}) }, tr("Close the table")));
}

function actionBar(view, prompt, ctx) {
  const hand = view.hand;
  const actions = new Set(prompt.actions);
  const me = view.seats[view.seat_index];
  const bar = h("div", { class: "actions", dataset: { prompt: hand.number } });
  const deadline = h("span", { class: "countdown turn-countdown", dataset: { countdownMs: prompt.deadline_ms, format: "s" } }, "");
  bar.append(h("div", { class: "your-turn" }, tr("Your turn "), deadline,
    prompt.anchored ? h("span", { class: "badge anchored" }, tr("⚓ anchored: pot-size raise at most")) : null));
  const act = (move, amount) => ctx.send("act", amount === undefined ? { move } : { move, amount });
  if (actions.has("fold")) bar.append(h("button", { class: "fold", dataset: { action: "fold" }, onclick: () => act("fold") }, tr("Fold")));
  if (actions.has("check")) bar.append(h("button", { dataset: { action: "check" }, onclick: () => act("check") }, tr("Check")));
  if (actions.has("call")) bar.append(h("button", { dataset: { action: "call" }, onclick: () => act("call") }, tr("Call {chips}", { chips: chips(prompt.to_call) })));
  const move = actions.has("bet") ? "bet" : actions.has("raise_to") ? "raise_to" : null;
  if (move && prompt.min_raise_to !== null && prompt.max_raise_to !== null) {
    const min = prompt.min_raise_to;
    const max = prompt.max_raise_to;
    const key = `${hand.number}:${prompt.deadline_ms}`;
    if (ctx.ui.raiseKey !== key) Object.assign(ctx.ui, { raiseKey: key, raiseTo: min });
    const value = Math.min(max, Math.max(min, ctx.ui.raiseTo));
    const label = h("span", {}, "");
    const number = h("input", { type: "number", min, max, step: 1, value, class: "raise-number", dataset: { raiseNumber: "1" } });
    const slider = h("input", { type: "range", min, max, step: 1, value, class: "raise-slider", dataset: { raiseSlider: "1" } });
    const button = h("button", { class: "primary", dataset: { action: move } }, label);
    const set = (v) => {
      const amount = Math.min(max, Math.max(min, Math.round(Number(v) || min)));
      ctx.ui.raiseTo = amount;
      slider.value = amount;
      number.value = amount;
      label.textContent = (move === "bet" ? tr("Bet {chips}", { chips: chips(amount) }) : tr("Raise to {chips}", { chips: chips(amount) }));
    };
    slider.addEventListener("input", () => set(slider.value));
    number.addEventListener("change", () => set(number.value));
    button.addEventListener("click", () => act(move, ctx.ui.raiseTo));
    // Presets: half pot, pot (the pot-size raise of R3.3), all the way.
    const potTotal = (hand.pot || 0) + (hand.bets_total || 0) + prompt.to_call;
    const presets = [["Min", min], ["½ Pot", hand.current_bet + Math.floor(potTotal / 2)],
      ["Pot", hand.current_bet + potTotal], ["Max", max]];
    set(value);
    bar.append(h("div", { class: "raise" }, slider, number,
      presets.map(([text, v]) => h("button", { class: "ghost small", dataset: { preset: text },
        onclick: () => set(v) }, tr(text))), button,
      h("span", { class: "muted small" }, `${chips(min)}–${chips(max)}`)));
  }
  if (actions.has("all_in")) {
    bar.append(h("button", { class: "allin", dataset: { action: "all_in" }, onclick: () => act("all_in") },
      tr("All-in {chips}", { chips: chips((me?.stack || 0) + (me?.bet || 0)) })));
  }
  if (me?.time_bank_ms && !me.time_bank_running) {  // R8.7: start it now (it also starts by itself)
    bar.append(h("button", { class: "ghost small", dataset: { action: "use_time_bank" },
      onclick: () => ctx.send("use_time_bank", {}) }, tr("Use time bank ({n} s)", { n: Math.floor(me.time_bank_ms / 1000) })));
  }
  return bar;
}

/** What a call would put in now for *me* (its stack when smaller): the price of a "call" pre-action. */
export function priceFor(view, me) {
  const top = Math.max(0, ...view.seats.filter((s) => s && s.in_hand).map((s) => s.bet || 0));
  return Math.max(0, Math.min(top - (me.bet || 0), me.stack || 0));
}

/** R8.8: the pre-action boxes while it is not your turn; one may be ticked (the server keeps
 *  it and plays it when your turn comes at the same price); unticking it clears it. */
function preActions(view, me, ctx) {
  const price = priceFor(view, me);
  const queued = view.pre_action || null;
  const choices = [["check_fold", tr("Check/Fold")],
    price ? ["call", tr("Call {chips}", { chips: chips(price) })] : ["check", tr("Check")],
    ["call_any", tr("Call any")], ["fold", tr("Fold")]];
  const box = h("div", { class: "pre-actions", dataset: { preActions: "1" } },
    h("span", { class: "muted small" }, tr("Next turn:")));
  for (const [kind, label] of choices) {
    const ticked = queued !== null && queued.kind === kind && (kind !== "call" || queued.amount === price);
    const input = h("input", { type: "checkbox", dataset: { preAction: kind } });
    input.checked = ticked;
    input.addEventListener("change", () => (input.checked
      ? ctx.preAction(kind, kind === "call" ? price : null) : ctx.preAction(null)));
    box.append(h("label", { class: "pre-action" }, input, label));
  }
  return box;
}

function seatBar(view, ctx) {
  const bar = h("div", { class: "seatbar" });
  const hand = view.hand;
  const me = view.seat_index !== null ? view.seats[view.seat_index] : null;
  const room = view.room || {};
  if (hand && !hand.complete && hand.actor !== null && hand.actor !== undefined) {
    const actor = view.seats[hand.actor];
    bar.append(h("span", { class: "muted", dataset: { waiting: hand.actor } }, tr("Waiting for {player}", { player: nameOf(view, hand.actor, false) }) +
      (actor?.is_bot ? " (BOT)" : "") + " ",
      h("span", { class: "countdown", dataset: { countdownMs: hand.actor_deadline_ms, format: "s" } }, "")));
  }
  if (view.tournament) {
    if (me) {
      bar.append(me.sitting_out
        ? h("button", { dataset: { action: "sit_in" }, onclick: () => ctx.send("sit_in", {}) }, tr("I'm back"))
        : h("button", { class: "ghost", dataset: { action: "sit_out" }, onclick: () => ctx.send("sit_out", {}) }, tr("Sit out")));
    } else {
      bar.append(h("span", { class: "muted" }, tr("You are watching this tournament's table")));
    }
    return bar;
  }
  if (!me) {
    const range = buyInRange(view);
    const rule = range.required ? `${range.min}-${range.max}` : "";
    // A new table, or the rule of R7.11 starting or ending: propose again (an amount kept
    // from before, outside what the server now accepts, would only be refused).
    if (ctx.ui.buyIn === undefined || ctx.ui.buyInTable !== view.table_id || ctx.ui.buyInRule !== rule) {
      ctx.ui.buyIn = range.proposal;
      ctx.ui.buyInTable = view.table_id;
      ctx.ui.buyInRule = rule;
    }
    const input = h("input", { type: "number", class: "buy-in", min: range.min,
      max: range.max, value: ctx.ui.buyIn, dataset: { buyIn: "1" },
      onchange: (e) => { ctx.ui.buyIn = Number(e.target.value); } });
    if (range.required && !room.closed) {
      const n = { left: chips(range.required.left_with), chips: chips(range.min) };
      bar.append(h("span", { class: "flag", dataset: { requiredBuyIn: String(range.min) } },
        range.min === range.max
          ? tr("Deep-stack table: you left with {left}, so you buy in for exactly {chips} (R7.11) for another ", n)
          : tr("Deep-stack table: you left with {left}, so you buy in for at least {chips} (R7.11) for another ", n),
        h("span", { class: "countdown", dataset: { countdownMs: range.required.until_ms, format: "clock" } }, "")));
    }
    const free = view.seats.some((s) => !s) && !(room.held_seats >= view.seats.filter((s) => !s).length);
    if (ctx.offerUntil) {
      bar.append(h("span", { class: "flag" }, tr("A seat is held for you "),
        h("span", { class: "countdown", dataset: { countdownMs: ctx.offerUntil, format: "s" } }, "")));
    }
    if (room.closed) {
      bar.append(h("span", { class: "muted" }, tr("This table is closed.")));
    } else if (free || ctx.offerUntil) {
      bar.append(h("label", {}, tr("Buy-in "), input), h("button", { class: "primary", dataset: { action: "join" },
        onclick: () => ctx.join(null) }, tr("Sit down")));
    } else {
      bar.append(h("button", { dataset: { action: "join_waitlist" }, onclick: () => ctx.send("join_waitlist", {}) },
        tr("Join the waiting list")));
    }
    return bar;
  }
  if (hand && !hand.complete && me.in_hand && !me.folded && me.stack > 0 && hand.actor !== view.seat_index) {
    bar.append(preActions(view, me, ctx));
  }
  if (me.owes_big || me.owes_small) {
    bar.append(h("span", { class: "muted" }, me.entry === "post" ? tr("You post to be dealt in at the next hand") : tr("You wait for the big blind")),
      h("button", { class: "ghost", dataset: { action: "choose_entry" },
        onclick: () => ctx.send("choose_entry", { entry: me.entry === "post" ? "wait" : "post" }) },
      me.entry === "post" ? tr("Wait instead") : tr("Post now")));
  }
  bar.append(me.sitting_out
    ? h("button", { dataset: { action: "sit_in" }, onclick: () => ctx.send("sit_in", {}) }, tr("Sit in"))
    : h("button", { class: "ghost", dataset: { action: "sit_out" }, onclick: () => ctx.send("sit_out", {}) }, tr("Sit out")));
  if (!me.in_hand || hand?.complete) {
    const room = (view.settings?.max_buy_in || 0) - me.stack;
    if (room > 0) {
      bar.append(h("button", { class: "ghost", dataset: { action: "add_chips" },
        onclick: () => ctx.send("add_chips", { amount: room }) }, tr("Top up {chips}", { chips: chips(room) })));
    }
  }
  bar.append(h("button", { class: "ghost", dataset: { action: "leave_table" }, onclick: () => ctx.send("leave_table", {}) }, tr("Leave")));
  return bar;
}
