// lobby.js: the lobby (protocol.md §3 list_tables, find_table, quick_seat, list_tournaments,
// get_tournament): cash tables, a private table by invite code, and the tournaments with their
// published terms (R9.1, R9.3, R9.9, R9.10).

import { chips, fill, h, ordinal } from "./dom.js";

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
      h("h1", {}, "Lobby"),
      state.account ? h("span", { class: "balance", dataset: { balance: state.account.balance } },
        `Balance ${chips(state.account.balance)} chips`) : null,
      h("button", { class: "ghost", dataset: { action: "refresh" }, onclick: () => ctx.refresh() }, "Refresh")),
    h("div", { class: "lobby-grid" },
      h("section", { class: "panel" }, h("h2", {}, "Cash tables"), cashTables(state, ctx),
        privateTable(ctx), quickSeat(state, ctx), createTable(ctx)),
      h("section", { class: "panel" }, h("h2", {}, "Tournaments"), tournaments(state, ctx))),
  );
}

function cashTables(state, ctx) {
  const tables = state.tables;
  if (tables === null) return h("p", { class: "muted" }, "Loading…");
  if (!tables.length) return h("p", { class: "muted" }, "No public table has a free seat.");
  return h("table", { class: "list" },
    h("thead", {}, h("tr", {}, ["Table", "Game", "Blinds", "Players", "Buy-in", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, tables.map((t) => h("tr", { dataset: { table: t.table_id } },
      h("td", {}, t.name), h("td", {}, t.variant), h("td", {}, `${t.small_blind}/${t.big_blind}`),
      h("td", {}, `${t.seated}/${t.seat_count}`),
      h("td", {}, `${chips(t.min_buy_in)}–${chips(t.max_buy_in)}`),
      h("td", { class: "row-actions" },
        h("button", { class: "primary small", dataset: { action: "play", table: t.table_id },
          onclick: () => ctx.openTable(t, true) }, "Play"),
        h("button", { class: "ghost small", dataset: { action: "watch", table: t.table_id },
          onclick: () => ctx.openTable(t, false) }, "Watch"))))));
}

function privateTable(ctx) {
  // The typed code survives a re-draw of the lobby (a refresh while typing).
  const input = h("input", { type: "text", placeholder: "INVITE CODE", maxlength: 16,
    class: "code", dataset: { inviteCode: "1" }, value: ctx.code || "",
    oninput: (e) => { ctx.code = e.target.value; } });
  return h("form", { class: "inline", onsubmit: (e) => { e.preventDefault(); ctx.findCode(input.value.trim().toUpperCase()); } },
    h("h3", {}, "Private table"), input, h("button", { type: "submit", dataset: { action: "find" } }, "Open"));
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
  } }, h("h3", {}, "Quick seat"), stakes, h("button", { type: "submit" }, "Seat me"));
}

/** create_table: a public or a private table you host (R7.12); buy-ins 20 to 200 big blinds. */
function createTable(ctx) {
  const name = h("input", { type: "text", value: "My table", maxlength: 40, size: 12, dataset: { tableName: "1" } });
  const variant = h("select", { dataset: { tableVariant: "1" } }, ["NLHE", "PLO", "NAIKO"].map((v) => h("option", { value: v }, v)));
  const seats = h("select", { dataset: { tableSeats: "1" } },
    [2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => h("option", { value: n, selected: n === 6 }, `${n} seats`)));
  const blinds = h("input", { type: "text", value: "1/2", size: 5 });
  // BOTs are for the tables you host (R7.12): you add them from the host's bar. A public table
  // has no host and is for people, as at a real card room: the box is not offered there.
  const bots = h("input", { type: "checkbox", checked: true, dataset: { tableBots: "1" } });
  const botsLabel = h("label", { class: "small", title: "add BOTs from the host's bar" }, bots, " BOTs");
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
  } }, h("h3", {}, "New table"), name, variant, seats, blinds,
  h("label", { class: "small" }, isPrivate, " private"), botsLabel,
  h("button", { type: "submit", dataset: { action: "create_table" } }, "Open"));
}

function tournaments(state, ctx) {
  const list = state.tournaments;
  if (list === null) return h("p", { class: "muted" }, "Loading…");
  if (!list.length) return h("p", { class: "muted" }, "No tournament is registering or running.");
  return h("div", { class: "tournaments" }, list.map((t) => tournamentCard(t, state, ctx)));
}

function tournamentCard(t, state, ctx) {
  const detail = state.details.get(t.tournament_id);
  const registered = detail ? (detail.registered || []).includes(state.me) : false;
  const terms = t.terms || {};
  const open = t.status === "registering";
  const starts = t.starts_ms ? h("span", {}, " · starts in ",
    h("span", { class: "countdown", dataset: { countdownMs: t.starts_ms, format: "clock" } }, "")) : null;
  const opens = t.opens_ms && t.opens_ms > state.nowMs ? h("span", {}, " · registration opens in ",
    h("span", { class: "countdown", dataset: { countdownMs: t.opens_ms, format: "clock" } }, "")) : null;
  const levels = terms.structure?.levels || [];
  const facts = [
    ["Entry", chips(t.entry)], ["Starting stack", chips(t.starting_stack)],
    ["Seats per table", t.seat_count], ["Players", `${chips(t.entrants)}/${chips(t.max_players)} (min ${t.min_players})`],
    ["Clock", terms.decision_ms ? `${terms.decision_ms / 1000} s` : "—"],
    ["Levels", levels.length ? `${levels.length} × ${levels[0].minutes} min, from ${levels[0].small_blind}/${levels[0].big_blind}` : "—"],
    ["Payout", PAYOUTS[terms.payout] || terms.payout || "—"],
    ["Late registration", terms.late_registration_level ? `until level ${terms.late_registration_level}` : "no"],
    ["BOTs", terms.bots_allowed ? "allowed" : "no"],
  ];
  const placesOf = (prizes) => prizes.map((p, i) => `${ordinal(i + 1)} ${chips(p)}`).join(", ");
  if (t.payouts?.length) facts.push(["Prizes", placesOf(t.payouts)]);
  else if (t.payout_split) facts.push([`Prizes (${chips(t.payout_split.entrants)} players)`, placesOf(t.payout_split.prizes)]);
  if (t.multiplier) facts.push(["Multiplier", `×${t.multiplier}`]);
  const spin = terms.spin_table?.prizes;
  return h("article", { class: "tournament", dataset: { tournament: t.tournament_id, kind: t.kind, status: t.status } },
    h("header", {},
      h("strong", {}, t.name), h("span", { class: "badge" }, KINDS[t.kind] || t.kind),
      h("span", { class: "badge" }, t.variant), h("span", { class: `badge status-${t.status}` }, t.status),
      registered ? h("span", { class: "badge ok", dataset: { registered: "1" } }, "registered") : null),
    h("div", { class: "muted small" }, `${chips(t.entrants)}/${chips(t.max_players)} players`, starts, opens),
    h("details", {}, h("summary", {}, "Terms"),
      h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))])),
      levels.length ? h("table", { class: "levels" },
        levels.length > 12 ? h("caption", { class: "muted small" }, `the first 12 of ${levels.length} levels`) : null,
        h("thead", {}, h("tr", {}, ["Level", "Blinds", "Ante", "Minutes"].map((x) => h("th", {}, x)))),
        h("tbody", {}, levels.slice(0, 12).map((l) => h("tr", {}, h("td", {}, l.number),
          h("td", {}, `${l.small_blind}/${l.big_blind}`), h("td", {}, l.ante ? `${l.ante}${l.ante_mode === "big_blind" ? " (BB)" : ""}` : "—"),
          h("td", {}, l.minutes))))) : null,
      t.payout_table?.length ? h("table", { class: "levels", dataset: { payoutTable: "1" } },
        h("thead", {}, h("tr", {}, ["Players", "Split %"].map((x) => h("th", {}, x)))),
        h("tbody", {}, t.payout_table.map((r) => h("tr", {},
          h("td", {}, r.min_entrants === r.max_entrants ? `${r.min_entrants}` : `${r.min_entrants}–${r.max_entrants}`),
          h("td", {}, r.percent.join(" / ")))))) : null,
      spin ? h("table", { class: "levels" },
        h("thead", {}, h("tr", {}, ["Multiplier", "Chance", "Split %"].map((x) => h("th", {}, x)))),
        h("tbody", {}, spin.map((p) => h("tr", {}, h("td", {}, `×${p.multiplier}`),
          h("td", {}, `${(p.weight / 10000).toFixed(4)} %`), h("td", {}, p.split.join(" / ")))))) : null),
    h("div", { class: "row-actions" },
      open && !registered ? h("button", { class: "primary small", dataset: { action: "register", tournament: t.tournament_id },
        onclick: () => ctx.register(t.tournament_id) }, `Register (${chips(t.entry)})`) : null,
      open && registered ? h("button", { class: "ghost small", dataset: { action: "unregister", tournament: t.tournament_id },
        onclick: () => ctx.unregister(t.tournament_id) }, "Unregister") : null,
      open && terms.bots_allowed ? h("button", { class: "ghost small", dataset: { action: "add_bots", tournament: t.tournament_id },
        title: "the creator may fill the free seats with BOTs", onclick: () => ctx.addBots(t.tournament_id) }, "Fill with BOTs") : null,
      t.status === "running" && detail?.tables?.length && registered ? h("button", { class: "small", dataset: { action: "open-tournament-table" },
        onclick: () => ctx.openTable({ table_id: detail.tables[0] }, false) }, "Open my table") : null));
}

