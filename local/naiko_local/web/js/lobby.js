// lobby.js: the lobby (protocol.md §3 list_tables, find_table, quick_seat, list_tournaments,
// get_tournament): cash tables, a private table by invite code, and the tournaments with their
// published terms (R9.1, R9.3, R9.9, R9.10).

import { chips, fill, h, ordinal } from "./dom.js";
import { tr } from "./i18n.js";

const KINDS = { sit_and_go: "Sit & Go", spin: "Spin", scheduled: "Scheduled" };
const PAYOUTS = {
  sit_and_go: "Sit & Go split (table below)", winner_takes_all: "winner takes all",
  scheduled: "scheduled split (top ~15 %)", spin: "Spin: multiplier table",
};

/**
 * @param {HTMLElement} root
 * @param {object} state  {tables, tournaments, details: Map id -> tournament, account, me, nowMs}
 * @param {object} ctx    {openTable(table, sit), findCode(code), quickSeat(fields),
 *                          register(id), unregister(id), addBots(id), details(id), refresh()}
 */
export function renderLobby(root, state, ctx) {
  fill(root, 
    h("div", { class: "lobby-head" },
      h("h1", {}, tr("Lobby")),
      state.account ? h("span", { class: "balance", dataset: { balance: state.account.balance } },
        tr("Balance {chips} chips", { chips: chips(state.account.balance) })) : null,
      h("button", { class: "ghost", dataset: { action: "refresh" }, onclick: () => ctx.refresh() }, tr("Refresh"))),
    h("div", { class: "lobby-grid" },
      h("section", { class: "panel" }, h("h2", {}, tr("Cash tables")), cashTables(state, ctx),
        privateTable(ctx), quickSeat(state, ctx), createTable(ctx)),
      h("section", { class: "panel" }, h("h2", {}, tr("Tournaments")), tournaments(state, ctx))),
  );
}

function cashTables(state, ctx) {
  const tables = state.tables;
  if (tables === null) return h("p", { class: "muted" }, tr("Loading…"));
  if (!tables.length) return h("p", { class: "muted" }, tr("No public table has a free seat."));
  return h("table", { class: "list" },
    h("thead", {}, h("tr", {}, [tr("Table"), tr("Game"), tr("Blinds"), tr("Players"), tr("Buy-in"), ""].map((x) => h("th", {}, x)))),
    h("tbody", {}, tables.map((t) => h("tr", { dataset: { table: t.table_id } },
      h("td", {}, t.name), h("td", {}, t.variant), h("td", {}, `${t.small_blind}/${t.big_blind}`),
      h("td", {}, `${t.seated}/${t.seat_count}`),
      h("td", {}, `${chips(t.min_buy_in)}–${chips(t.max_buy_in)}`),
      h("td", { class: "row-actions" },
        h("button", { class: "primary small", dataset: { action: "play", table: t.table_id },
          onclick: () => ctx.openTable(t, true) }, tr("Play")),
        h("button", { class: "ghost small", dataset: { action: "watch", table: t.table_id },
          onclick: () => ctx.openTable(t, false) }, tr("Watch")))))));
}

function privateTable(ctx) {
  // The typed code survives a re-draw of the lobby (a refresh while typing).
  const input = h("input", { type: "text", placeholder: tr("INVITE CODE"), maxlength: 16,
    class: "code", dataset: { inviteCode: "1" }, value: ctx.code || "",
    oninput: (e) => { ctx.code = e.target.value; } });
  return h("form", { class: "inline", onsubmit: (e) => { e.preventDefault(); ctx.findCode(input.value.trim().toUpperCase()); } },
    h("h3", {}, tr("Private table")), input, h("button", { type: "submit", dataset: { action: "find" } }, tr("Open")));
}

/** quick_seat at one of the stakes the deployment publishes (list_tables' quick_seat_stakes):
 * others are refused (unknown_stakes), so the form offers only those. */
function quickSeat(state, ctx) {
  const published = state.quickSeatStakes || [];
  if (!published.length) return null;
  const stakes = h("select", { dataset: { quickStakes: "1" } }, published.map((s, i) =>
    h("option", { value: i }, `${s.variant} ${s.small_blind}/${s.big_blind}`)));
  return h("form", { class: "inline", onsubmit: (e) => {
    e.preventDefault();
    const s = published[Number(stakes.value)];
    ctx.quickSeat({ variant: s.variant, small_blind: s.small_blind, big_blind: s.big_blind,
      buy_in: 100 * s.big_blind });
  } }, h("h3", {}, tr("Quick seat")), stakes, h("button", { type: "submit" }, tr("Seat me")));
}

/** create_table: a public or a private table you host (R7.12); buy-ins 20 to 200 big blinds. */
function createTable(ctx) {
  const name = h("input", { type: "text", value: tr("My table"), maxlength: 40, size: 12, dataset: { tableName: "1" } });
  const variant = h("select", { dataset: { tableVariant: "1" } }, ["NLHE", "PLO", "NAIKO"].map((v) => h("option", { value: v }, v)));
  const seats = h("select", { dataset: { tableSeats: "1" } },
    [2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => h("option", { value: n, selected: n === 6 }, tr("{n} seats", { n }))));
  const blinds = h("input", { type: "text", value: "1/2", size: 5 });
  // BOTs are for the tables you host (R7.12): you add them from the host's bar. A public table
  // has no host and is for people, as at a real card room: the box is not offered there.
  const bots = h("input", { type: "checkbox", checked: true, dataset: { tableBots: "1" } });
  const botsLabel = h("label", { class: "small", title: tr("add BOTs from the host's bar") }, bots, tr(" BOTs"));
  const isPrivate = h("input", { type: "checkbox", checked: true, dataset: { tablePrivate: "1" },
    onchange: () => { botsLabel.hidden = !isPrivate.checked; } });
  return h("form", { class: "inline", onsubmit: (e) => {
    e.preventDefault();
    const [small, big] = blinds.value.split("/").map(Number);
    const fields = { name: name.value.trim(), variant: variant.value, seat_count: Number(seats.value),
      small_blind: small, big_blind: big, min_buy_in: 20 * big, max_buy_in: 200 * big,
      private: isPrivate.checked, bots: isPrivate.checked && bots.checked };
    if (isPrivate.checked) fields.min_players = 2;
    ctx.createTable(fields);
  } }, h("h3", {}, tr("New table")), name, variant, seats, blinds,
  h("label", { class: "small" }, isPrivate, tr(" private")), botsLabel,
  h("button", { type: "submit", dataset: { action: "create_table" } }, tr("Open")));
}

function tournaments(state, ctx) {
  const list = state.tournaments;
  if (list === null) return h("p", { class: "muted" }, tr("Loading…"));
  if (!list.length) return h("p", { class: "muted" }, tr("No tournament is registering or running."));
  return h("div", { class: "tournaments" }, list.map((t) => tournamentCard(t, state, ctx)));
}

function tournamentCard(t, state, ctx) {
  const detail = state.details.get(t.tournament_id);
  const registered = detail ? Boolean(detail.you && detail.you.registered) : false;
  const terms = t.terms || {};
  const open = t.status === "registering";
  const starts = t.starts_ms ? h("span", {}, tr(" · starts in "),
    h("span", { class: "countdown", dataset: { countdownMs: t.starts_ms, format: "clock" } }, "")) : null;
  const opens = t.opens_ms && t.opens_ms > state.nowMs ? h("span", {}, tr(" · registration opens in "),
    h("span", { class: "countdown", dataset: { countdownMs: t.opens_ms, format: "clock" } }, "")) : null;
  const levels = terms.structure?.levels || [];
  const facts = [
    [tr("Entry"), chips(t.entry)], [tr("Starting stack"), chips(t.starting_stack)],
    [tr("Seats per table"), t.seat_count], [tr("Players"), `${chips(t.entrants)}/${chips(t.max_players)} (min ${t.min_players})`],
    [tr("Clock"), terms.decision_ms ? `${terms.decision_ms / 1000} s` : "—"],
    [tr("Levels"), levels.length ? `${levels.length} × ${levels[0].minutes} min, from ${levels[0].small_blind}/${levels[0].big_blind}` : "—"],
    [tr("Payout"), tr(PAYOUTS[terms.payout] || terms.payout || "—")],
    [tr("Late registration"), terms.late_registration_level ? tr("until level {level}", { level: terms.late_registration_level }) : tr("no")],
    [tr("BOTs"), terms.bots_allowed ? tr("allowed") : tr("no")],
    [tr("Entries per player"), (terms.entries_per_player || 1) > 1
      ? tr("{n} (re-entry while late registration is open; {reentries} so far)", { n: terms.entries_per_player, reentries: t.reentries || 0 })
      : "1"],
  ];
  if (terms.bounty) {
    facts.push([tr("Bounty"), terms.progressive
      ? tr("{bounty} an entry, progressive: half of each bounty won adds to the winner's own", { bounty: chips(terms.bounty) })
      : tr("{bounty} an entry, paid to who knocks the player out", { bounty: chips(terms.bounty) })]);
  }
  if (terms.deals) {
    facts.push([tr("Deals"), tr("at the final table of {n} or fewer, by unanimous acceptance within {s} s", { n: terms.deals.max_players, s: terms.deals.clock_s })]);
  }
  const entries = (terms.entries_per_player || 1) > 1 && registered ? Number(detail.you.entries || 1) : null;
  if (entries !== null) facts.push([tr("Your re-entries left"), String(Math.max(0, terms.entries_per_player - entries))]);
  const placesOf = (prizes) => prizes.map((p, i) => `${ordinal(i + 1)} ${chips(p)}`).join(", ");
  if (t.payouts?.length) facts.push([tr("Prizes"), placesOf(t.payouts)]);
  else if (t.payout_split) facts.push([tr("Prizes ({n} players)", { n: chips(t.payout_split.entrants) }), placesOf(t.payout_split.prizes)]);
  if (t.multiplier) facts.push([tr("Multiplier"), `×${t.multiplier}`]);
  const spin = terms.spin_table?.prizes;
  const standing = state.standings?.get(t.tournament_id);
  return h("article", { class: "tournament", dataset: { tournament: t.tournament_id, kind: t.kind, status: t.status } },
    h("header", {},
      h("strong", {}, t.name), h("span", { class: "badge" }, tr(KINDS[t.kind] || t.kind)),
      h("span", { class: "badge" }, t.variant), h("span", { class: `badge status-${t.status}` }, tr(t.status)),
      registered ? h("span", { class: "badge ok", dataset: { registered: "1" } }, tr("registered")) : null,
      terms.bounty ? h("span", { class: "badge bounty", dataset: { bounty: terms.bounty } }, tr("KO {bounty}", { bounty: chips(terms.bounty) })) : null,
      entries !== null ? h("span", { class: "badge", dataset: { reentriesLeft: Math.max(0, terms.entries_per_player - entries) } },
        tr("{n} re-entries left", { n: Math.max(0, terms.entries_per_player - entries) })) : null),
    h("div", { class: "muted small" }, tr("{entrants}/{max} players", { entrants: chips(t.entrants), max: chips(t.max_players) }), starts, opens),
    h("details", {}, h("summary", {}, tr("Terms")),
      h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))])),
      levels.length ? h("table", { class: "levels" },
        levels.length > 12 ? h("caption", { class: "muted small" }, tr("the first 12 of {n} levels", { n: levels.length })) : null,
        h("thead", {}, h("tr", {}, [tr("Level"), tr("Blinds"), tr("Ante"), tr("Minutes")].map((x) => h("th", {}, x)))),
        h("tbody", {}, levels.slice(0, 12).map((l) => h("tr", {}, h("td", {}, l.number),
          h("td", {}, `${l.small_blind}/${l.big_blind}`), h("td", {}, l.ante ? `${l.ante}${l.ante_mode === "big_blind" ? " (BB)" : ""}` : "—"),
          h("td", {}, l.minutes))))) : null,
      t.payout_table?.length ? h("table", { class: "levels", dataset: { payoutTable: "1" } },
        h("thead", {}, h("tr", {}, [tr("Players"), tr("Split %")].map((x) => h("th", {}, x)))),
        h("tbody", {}, t.payout_table.map((r) => h("tr", {},
          h("td", {}, r.min_entrants === r.max_entrants ? `${r.min_entrants}` : `${r.min_entrants}–${r.max_entrants}`),
          h("td", {}, r.percent.join(" / ")))))) : null,
      spin ? h("table", { class: "levels" },
        h("thead", {}, h("tr", {}, [tr("Multiplier"), tr("Chance"), tr("Split %")].map((x) => h("th", {}, x)))),
        h("tbody", {}, spin.map((p) => h("tr", {}, h("td", {}, `×${p.multiplier}`),
          h("td", {}, `${(p.weight / 10000).toFixed(4)} %`), h("td", {}, p.split.join(" / ")))))) : null),
    standing ? standingsBlock(standing) : null,
    h("div", { class: "row-actions" },
      open && !registered ? h("button", { class: "primary small", dataset: { action: "register", tournament: t.tournament_id },
        onclick: () => ctx.register(t.tournament_id) }, tr("Register ({entry})", { entry: chips(t.entry) })) : null,
      open && registered ? h("button", { class: "ghost small", dataset: { action: "unregister", tournament: t.tournament_id },
        onclick: () => ctx.unregister(t.tournament_id) }, tr("Unregister")) : null,
      t.status === "running" && registered && entries !== null && entries < terms.entries_per_player && t.payouts?.length === 0
        ? h("button", { class: "ghost small", dataset: { action: "reenter", tournament: t.tournament_id },
          onclick: () => ctx.reenter(t.tournament_id) }, tr("Re-enter ({entry})", { entry: chips(t.entry) })) : null,
      open && terms.bots_allowed ? h("button", { class: "ghost small", dataset: { action: "add_bots", tournament: t.tournament_id },
        title: tr("the creator may fill the free seats with BOTs"), onclick: () => ctx.addBots(t.tournament_id) }, tr("Fill with BOTs")) : null,
      t.status === "running" && detail?.tables?.length && registered ? h("button", { class: "small", dataset: { action: "open-tournament-table" },
        onclick: () => ctx.openTable({ table_id: detail.tables[0] }, false) }, tr("Open my table")) : null));
}


/** A running tournament's live standings (get_standings): players left, average and largest
 * stack, the level and the next one, and the first ranks. */
function standingsBlock(standing) {
  const s = standing.summary || {};
  const level = s.level;
  const next = level?.next_level;
  const facts = [
    [tr("Players left"), `${chips(s.players_left)}/${chips(s.players)}`],
    [tr("Average stack"), chips(s.average_stack)],
    [tr("Largest stack"), s.largest_stack ? `${chips(s.largest_stack.stack)} (${s.largest_stack.player_id})` : "—"],
    [tr("Level"), level ? `${level.level}: ${level.small_blind}/${level.big_blind}${level.ante ? ` (${level.ante})` : ""}` : "—"],
    [tr("Next level"), next ? `${next.number}: ${next.small_blind}/${next.big_blind}${next.ante ? ` (${next.ante})` : ""}` : "—"],
  ];
  const rows = standing.players || [];
  return h("details", { dataset: { standings: standing.tournament_id } }, h("summary", {}, tr("Standings")),
    h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))])),
    rows.length ? h("table", { class: "levels", dataset: { standingsRows: "1" } },
      h("thead", {}, h("tr", {}, [tr("Rank"), tr("Player"), tr("Stack")].map((x) => h("th", {}, x)))),
      h("tbody", {}, rows.map((r) => h("tr", {}, h("td", {}, r.place ? ordinal(r.place) : r.rank),
        h("td", {}, r.player_id), h("td", {}, r.stack ? chips(r.stack) : "—"))))) : null);
}
