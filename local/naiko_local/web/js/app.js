// app.js: the Naiko web client. It ties the connection (connection.js) to the screens: the
// lobby (lobby.js), a table (table.js) and the hand history (history.js).
//
// How a client follows a table (protocol.md §5):
//   * `snapshot` watches a table and returns its whole view at a version;
//   * every change then arrives as an `update` (version + events + the whole new view);
//   * apply a message only if its version is newer than the one shown; if a version was
//     skipped, ask for a `snapshot` (the missed events are lost, the view is complete);
//   * after a reconnection, `snapshot` again: the server marks you back (R8.3).
// The client never decides anything: buttons are drawn from the prompt and the server has the
// last word (its `error` replies are shown as they come). It does check one thing: every card
// it is shown must come with a proof that leads to the deck committed before the deal
// (R10.2, proofs.js); a proof that fails is shown as an error on the table.

import { NaikoConnection } from "./connection.js";
import { clock, fill, h, secondsLeft, setRing } from "./dom.js";
import { renderHistory } from "./history.js";
import { renderLobby } from "./lobby.js";
import { narrate } from "./narrate.js";
import { ProofTracker, verifyStoredHand } from "./proofs.js";
import { buyInRange, renderTable } from "./table.js";
import { CHAT_LINES } from "./chat.js";
import { tr } from "./i18n.js";

const LOG_LINES = 200;
const MUTED = "naiko.muted";

/** The players this page muted (R8.9), kept across reloads: a mute lasts as long as the
 *  server's connection, so the page sends them again after each (re)connection. */
function loadMuted() {
  try { return new Set(JSON.parse(localStorage.getItem(MUTED) || "[]").filter((p) => typeof p === "string")); } catch { return new Set(); }
}

/** Whether a reply says the request was applied: its `ack`, or an `update` that carries the
 *  request's id (a server may fold the ack into the update it sends the requester). */
function applied(reply) {
  return reply.type === "ack" || reply.type === "update";
}

/** Keep the table shown in the address (#table=…), so a reload comes back to it. */
function setHashTable(tableId) {
  const params = new URLSearchParams(location.hash.slice(1));
  if (tableId) params.set("table", tableId);
  else params.delete("table");
  const hash = params.toString();
  history.replaceState(null, "", `${location.pathname}${location.search}${hash ? "#" + hash : ""}`);
}

export class App {
  /**
   * @param {object} options {wsUrl, token: () => Promise<string>, playerId, notifications}
   *   notifications: () => Promise<{total, notifications: [{title, body, ...}]}>, the push
   *   notifications sent to this player (local mode only; null elsewhere)
   */
  constructor({ wsUrl, token, playerId, notifications = null }) {
    this.playerId = playerId;
    this.notifications = notifications;
    this.screen = "lobby";               // "lobby" | "table"
    this.tableId = null;                 // the table shown
    this.version = 0;                    // the version of the view shown
    this.view = null;
    this.log = [];
    this.ui = {};                        // controls' state kept across re-draws (raise, buy-in)
    this.offerUntil = null;              // a seat held for us (R7.10)
    this.inviteCode = null;              // the code that opened a private table
    this.showdown = null;                // {hand, hands: {seat: "two pair"}} of the last showdown
    this.proofs = new ProofTracker();    // the shown hand's card proofs and their checks (R10.2)
    this.offsetMs = 0;                   // server clock - local clock, when clearly off
    this.lobby = { tables: null, tournaments: null, details: new Map(), standings: new Map(), account: null };
    this.history = null;                 // the panel's state, null when closed
    this.chat = [];                      // R8.9: the table's chat lines (chat.js)
    this.chatUnread = 0;                 // lines arrived while a phone's chat panel was closed
    this.muted = loadMuted();            // players whose chat this page does not want
    this.elements = {
      status: document.getElementById("conn"),
      player: document.getElementById("player"),
      main: document.getElementById("screen"),
      history: document.getElementById("history"),
      toast: document.getElementById("toast"),
    };
    this.elements.player.textContent = playerId;
    document.getElementById("history-button").addEventListener("click", () => this.openHistory());
    this.conn = new NaikoConnection({
      url: wsUrl, token,
      onMessage: (m) => this.onMessage(m),
      onOpen: (again) => this.onOpen(again),
      onStatus: (state, detail) => this.onStatus(state, detail),
    });
    setInterval(() => this.tick(), 200);
    window.addEventListener("resize", () => this.measureControls()); // a phone turned round
  }

  start() {
    this.conn.connect();
    this.render();
  }

  nowMs() {
    return Date.now() + this.offsetMs;
  }

  // -- the connection ------------------------------------------------------------------------

  onStatus(state, detail) {
    if (state === "offline") document.body.dataset.drops = String(Number(document.body.dataset.drops || 0) + 1);
    document.body.dataset.conn = state;
    this.elements.status.dataset.state = state;
    this.elements.status.textContent = state === "online" ? tr("online") : tr(detail);
  }

  onOpen(again) {
    for (const player of this.muted) this.conn.request("chat_mute", { player_id: player }); // R8.9
    this.showMissedNotifications();
    if (this.tableId) {
      // Resume: the snapshot marks us back at our seat and brings the confirmed state (R8.3).
      this.watch(this.tableId, again ? tr("Reconnected: the table shows the server's confirmed state.") : null);
    } else {
      this.loadLobby();
    }
  }

  /** Send a request; an `error` reply is shown as a toast. Returns the reply. */
  async send(action, fields = {}, { table = true } = {}) {
    const frame = table && this.tableId ? { table_id: this.tableId, ...fields } : fields;
    const reply = await this.conn.request(action, frame);
    if (reply.type === "error") this.toast(`${action}: ${reply.message} (${reply.code})`, true);
    if (reply.type === "lost") this.toast(tr("{action}: no answer ({reason}); the table shows what the server applied", { action, reason: reply.message }), true);
    return reply;
  }

  /** R8.8: queue a pre-action (*kind*: check_fold, check, call with *amount*, call_any, fold)
   *  or clear it (*kind* null). The server answers `ack` and tells nobody, so no update shows
   *  it: the view kept here does, until the next one. */
  async preAction(kind, amount = null) {
    const reply = kind === null ? await this.send("clear_pre_action", {})
      : await this.send("pre_action", amount === null ? { kind } : { kind, amount });
    if (applied(reply) && this.view) {
      this.view.pre_action = kind === null ? null : { kind, amount };
    }
    this.render();
  }

  onMessage(message) {
    switch (message.type) {
      case "snapshot":
      case "update":
        if (message.table_id === this.tableId) this.apply(message);
        else this.otherTable(message);
        break;
      case "chat":  // R8.9: said at the table shown (the server left out the players we muted)
        if (message.table_id === this.tableId && !this.muted.has(message.player_id)) {
          this.chat.push(message);
          if (this.chat.length > CHAT_LINES) this.chat.splice(0, this.chat.length - CHAT_LINES);
          if (document.body.dataset.panel !== "chat") this.chatUnread += 1;
          this.render();
        }
        break;
      case "invite_code":
        if (this.view && message.table_id === this.tableId) {
          this.view.room = { ...(this.view.room || {}), invite_code: message.code };
          this.render();
        }
        break;
      default:
        break; // replies are handled by whoever sent the request; unknown types are ignored
    }
  }

  /** Apply a snapshot or update of the table shown (protocol.md §5, version rules). */
  apply(message) {
    const version = Number(message.version || 0);
    const isUpdate = message.type === "update";
    if (isUpdate && version <= this.version) return;       // older or repeated
    if (!isUpdate && version < this.version) return;       // a snapshot older than an update
    const gap = isUpdate && this.version > 0 && version > this.version + 1;
    const missed = isUpdate ? gap : this.version > 0 && version > this.version; // events not seen
    this.version = version;
    if (message.view && typeof message.view === "object") this.view = message.view;
    const events = isUpdate ? message.events || [] : [];
    for (const e of events) {
      if (e.kind === "seat_offered") this.offerUntil = e.until_ms || null;
      if (e.kind === "offer_expired") this.offerUntil = null;
      if (e.kind === "showdown") {
        this.showdown = { hand: this.view?.hand?.number, hands: {} };
        for (const s of e.hands || []) this.showdown.hands[s.seat_index] = s.hand;
      }
    }
    if (this.view?.seat_index !== null && this.view?.seat_index !== undefined) this.offerUntil = null;
    const lines = narrate(events, (seat) => this.logName(seat),
      { seat: this.view?.seat_index ?? null, player: this.playerId || null });
    this.log.push(...lines);
    if (this.log.length > LOG_LINES) this.log.splice(0, this.log.length - LOG_LINES);
    this.checkProofs(message, events, missed);
    this.estimateOffset(events);
    if (gap) this.send("snapshot");
    this.render();
  }

  /**
   * R10.2: check the proofs a message carries against the hand's commitment (asynchronous:
   * WebCrypto). Until the check ends the cards are marked as being checked; then the log says
   * `✓ proved Ah@4 Kd@5` at the end of the line that showed them (as the terminal client
   * does), and a failed proof goes to the table's alert, the log and the console.
   */
  checkProofs(message, events, missed) {
    const table = this.tableId;
    this.proofs.take(message, this.view, events, { missed }).then((result) => {
      if (table !== this.tableId || (!result.proved.length && !result.failed.length)) return;
      if (result.proved.length) {
        const good = result.proved.map((p) => `${p.card}@${p.position}`).join(" ");
        const cards = result.proved.map((p) => p.card);
        const index = this.log.findLastIndex((line) => cards.some((card) => line.includes(card)));
        const mark = tr("✓ proved {cards}", { cards: good });
        if (index >= 0 && !this.log[index].includes(mark)) this.log[index] += `  ${mark}`;
        else this.log.push(tr("✓ proved against the commitment: {cards}", { cards: good }));
      }
      for (const failure of result.failed) {
        console.error(failure.sentence, failure);
        this.log.push(`✗ ${failure.sentence}`);
      }
      this.render();
    }).catch((error) => console.error("R10.2 proof check:", error));
  }

  /** A seat's player id for the log (narrate.js says "you" for the viewer's). */
  logName(seat) {
    const entry = (this.view?.seats || [])[seat];
    return entry ? entry.player_id : `seat ${seat}`;
  }

  /** An update of a table not shown: a tournament we registered for started (R9.2). */
  otherTable(message) {
    const started = (message.events || []).find((e) => e.kind === "tournament_started");
    if (!started) return;
    if (this.view && this.view.seat_index !== null && this.screen === "table") {
      this.toast(tr("Your tournament started at table {table}", { table: message.table_id }));
      return;
    }
    this.showTable(message.table_id);
    this.apply(message);
    this.toast(tr("Your tournament starts: your seat is below."));
  }

  /** Turn deadlines are the server's now + the clock: correct a local clock that is off. */
  estimateOffset(events) {
    const hand = this.view?.hand;
    const decision = this.view?.settings?.decision_ms;
    const kinds = new Set(events.map((e) => e.kind));
    if (!kinds.has("turn") || kinds.has("reconnect_grace") || !hand?.actor_deadline_ms || !decision) return;
    const offset = hand.actor_deadline_ms - decision - Date.now();
    this.offsetMs = Math.abs(offset) > 1500 ? offset : 0;
  }

  // -- tables --------------------------------------------------------------------------------

  showTable(tableId) {
    if (tableId !== this.tableId) {
      Object.assign(this, { tableId, version: 0, view: null, log: [], offerUntil: null, showdown: null, ui: {},
        proofs: new ProofTracker(), chat: [], chatUnread: 0 });
    }
    this.screen = "table";
    setHashTable(tableId);
  }

  /** Watch a table: `snapshot` (with the invite code of a private table). */
  async watch(tableId, notice = null) {
    this.showTable(tableId);
    this.render();
    const fields = { table_id: tableId };
    if (this.inviteCode) fields.invite_code = this.inviteCode;
    const reply = await this.send("snapshot", fields, { table: false });
    if (reply.type === "snapshot" && notice) this.toast(notice);
    if (reply.type === "error" && reply.code === "unknown_table") this.toLobby();
    return reply;
  }

  /** Sit down (join_table) with the buy-in of the controls, at `seatIndex` or any seat. */
  async join(seatIndex = null) {
    const fields = { buy_in: Number(this.ui.buyIn) || this.defaultBuyIn() };
    if (seatIndex !== null && seatIndex !== undefined) fields.seat_index = seatIndex;
    if (this.inviteCode) fields.invite_code = this.inviteCode;
    const reply = await this.send("join_table", fields);
    if (applied(reply)) this.toast(tr("You sit down."));
  }

  /** What the form proposes for `view` (buyInRange: the buy-in R7.11 requires, if any). */
  defaultBuyIn(view = this.view) {
    return view ? buyInRange(view).proposal : 0;
  }

  toLobby() {
    this.togglePanel(null);
    this.screen = "lobby";
    this.tableId = null;
    this.view = null;
    this.inviteCode = null;
    setHashTable(null);
    this.loadLobby();
  }

  // -- the lobby -----------------------------------------------------------------------------

  /**
   * A paged list (docs/protocol.md "Pages"): the first page, then each `next` (at most `pages`
   * pages), the rows under `key` joined into one reply; its `next` says whether more remain.
   */
  async requestPages(action, key, pages) {
    const first = await this.conn.request(action);
    if (!first || !Array.isArray(first[key])) return first;
    const rows = [...first[key]];
    let reply = first;
    for (let n = 1; reply.next && n < pages; n++) {
      reply = await this.conn.request(action, { cursor: reply.next });
      if (!reply || !Array.isArray(reply[key])) break;
      rows.push(...reply[key]);
    }
    return { ...first, [key]: rows, next: reply ? reply.next || null : null };
  }

  async loadLobby() {
    this.render();
    const [tables, tournaments, account] = await Promise.all([
      this.requestPages("list_tables", "tables", 4), this.requestPages("list_tournaments", "tournaments", 4),
      this.conn.request("get_account"),
    ]);
    if (tables.type === "tables") {
      this.lobby.tables = tables.tables;
      this.lobby.quickSeatStakes = tables.quick_seat_stakes || [];
    }
    if (tournaments.type === "tournaments") this.lobby.tournaments = tournaments.tournaments;
    if (account.type === "account") this.lobby.account = account;
    // Whether you registered is in each tournament's detail (get_tournament: `you`).
    const details = await Promise.all((this.lobby.tournaments || []).slice(0, 20)
      .map((t) => this.conn.request("get_tournament", { tournament_id: t.tournament_id })));
    for (const d of details) if (d.type === "tournament") this.lobby.details.set(d.tournament.tournament_id, d.tournament);
    // A running tournament's live standings: the summary and the first ten ranks (get_standings).
    const running = (this.lobby.tournaments || []).slice(0, 20).filter((t) => t.status === "running");
    const standings = await Promise.all(running.map((t) =>
      this.conn.request("get_standings", { tournament_id: t.tournament_id, limit: 10 })));
    for (const s of standings) if (s.type === "standings") this.lobby.standings.set(s.tournament_id, s);
    if (this.screen === "lobby") this.render();
  }

  lobbyCtx() {
    const lobby = this.lobby;
    return {
      get code() { return lobby.code; },
      set code(value) { lobby.code = value; },
      refresh: () => this.loadLobby(),
      openTable: async (table, sit) => {
        this.inviteCode = null;
        const reply = await this.watch(table.table_id);
        if (sit && reply.type === "snapshot" && reply.view.seat_index === null) {
          this.ui.buyIn = this.defaultBuyIn(reply.view);
          await this.join();
        }
      },
      findCode: async (code) => {
        const reply = await this.send("find_table", { code }, { table: false });
        if (reply.type === "table_found") {
          this.inviteCode = code;
          await this.watch(reply.table_id, tr("Private table found: sit down when you like."));
        }
      },
      createTable: async (fields) => {
        const reply = await this.send("create_table", fields, { table: false });
        if (applied(reply)) {
          this.inviteCode = null;
          await this.watch(reply.table_id, tr("Your table is open: sit down when you like."));
        }
      },
      quickSeat: async (fields) => {
        const reply = await this.send("quick_seat", fields, { table: false });
        if (applied(reply)) await this.watch(reply.table_id);
      },
      register: (id) => this.tournamentRequest("register", id, tr("Registered: the entry is paid. Your table opens here when it starts.")),
      unregister: (id) => this.tournamentRequest("unregister", id, tr("Unregistered: the entry is back on your account.")),
      reenter: (id) => this.tournamentRequest("reenter", id, tr("Entered again: a new starting stack is on its way to a table.")),
      addBots: (id) => this.tournamentRequest("tournament_add_bots", id, "BOTs added."),
    };
  }

  async tournamentRequest(action, tournamentId, notice) {
    const reply = await this.send(action, { tournament_id: tournamentId }, { table: false });
    if (applied(reply)) this.toast(notice);
    if (this.screen === "lobby") await this.loadLobby();
  }

  // -- table chat (R8.9) ---------------------------------------------------------------------

  chatCtx() {
    return {
      lines: this.chat, muted: this.muted, unread: this.chatUnread,
      say: (text) => this.send("chat", { text }),
      emote: (emote) => this.send("emote", { emote }),
      mute: (player) => this.setMuted(player, true),
      unmute: (player) => this.setMuted(player, false),
    };
  }

  async setMuted(player, muted) {
    const reply = await this.send(muted ? "chat_mute" : "chat_unmute", { player_id: player }, { table: false });
    if (!applied(reply)) return;
    if (muted) this.muted.add(player);
    else this.muted.delete(player);
    try { localStorage.setItem(MUTED, JSON.stringify([...this.muted])); } catch { /* storage off */ }
    this.toast(muted ? tr("You no longer receive {name}'s chat.", { name: player }) : tr("You receive {name}'s chat again.", { name: player }));
    this.render();
  }

  // -- the hand history ----------------------------------------------------------------------

  async openHistory() {
    this.history = { hands: null, next: null, hand: null, error: null };
    this.renderHistory();
    const reply = await this.conn.request("hand_history", { limit: 20 });
    if (reply.type === "hands") Object.assign(this.history, { hands: reply.hands, next: reply.next });
    else this.history.error = reply.message || "unavailable";
    this.renderHistory();
  }

  renderHistory() {
    const panel = this.elements.history;
    panel.hidden = this.history === null;
    document.body.dataset.history = this.history === null ? "closed" : "open";  // the layout makes room
    if (this.history === null) return;
    renderHistory(panel, this.history, {
      close: () => { this.history = null; this.renderHistory(); },
      back: () => { this.history.hand = null; this.renderHistory(); },
      more: async () => {
        const reply = await this.conn.request("hand_history", { limit: 20, before: this.history.next });
        if (reply.type === "hands") {
          this.history.hands.push(...reply.hands);
          this.history.next = reply.next;
        }
        this.renderHistory();
      },
      open: async (tableId, handNumber) => {
        const reply = await this.conn.request("get_hand", { table_id: tableId, hand_number: handNumber });
        if (reply.type === "hand") {
          const hand = reply.hand;
          Object.assign(this.history, { hand, verdict: null });
          // R10.2: the check naiko-verify runs, in the page (async: WebCrypto); the panel says
          // "checking" until it ends, then the verdict, if the same hand is still open.
          verifyStoredHand(hand).then((verdict) => {
            if (this.history?.hand !== hand) return;
            this.history.verdict = verdict;
            this.renderHistory();
          }).catch((error) => console.error("R10.2 stored hand check:", error));
        } else this.history.error = reply.message;
        this.renderHistory();
      },
    });
  }

  // -- drawing -------------------------------------------------------------------------------

  render() {
    const main = this.elements.main;
    document.body.dataset.screen = this.screen;
    if (this.screen === "table") {
      if (!this.view) {
        fill(main, h("p", { class: "muted centre-text" }, tr("Opening the table…")));
        return;
      }
      // the chat's text field is kept across redraws: give it its focus and caret back
      const typing = document.activeElement?.dataset?.chatInput
        ? [document.activeElement.selectionStart, document.activeElement.selectionEnd] : null;
      renderTable(main, this.view, {
        nowMs: this.nowMs(), version: this.version, tableId: this.tableId, log: this.log,
        ui: this.ui, showdown: this.showdown, offerUntil: this.offerUntil, playerId: this.playerId,
        proofs: this.proofs, panel: document.body.dataset.panel || null, chat: this.chatCtx(),
        tournamentTerms: (id) => (this.lobby.details.get(id) || (this.lobby.tournaments || []).find((t) => t.tournament_id === id))?.terms || null,
        rerender: () => this.render(),
        togglePanel: (panel) => this.togglePanel(panel),
        send: (action, fields) => this.send(action, fields),
        preAction: (kind, amount) => this.preAction(kind, amount),
        join: (seat) => this.join(seat),
        toLobby: () => this.toLobby(),
      });
      const input = typing ? main.querySelector("[data-chat-input]") : null;
      if (input) {
        input.focus();
        input.setSelectionRange(...typing);
      }
    } else {
      renderLobby(main, { ...this.lobby, me: this.playerId, nowMs: this.nowMs() }, this.lobbyCtx());
    }
    this.measureControls();
    this.tick();
  }

  /** A phone's panels (the Carousel, the log, the chat, the host's bar; table.js draws their buttons):
   *  `name` opens it and closes the others, the open one's button or `null` closes it. Only the
   *  CSS of a narrow screen reads `body[data-panel]`: a wide one shows them all the time. */
  togglePanel(name) {
    const open = name && document.body.dataset.panel !== name ? name : null;
    if (open) document.body.dataset.panel = open;
    else delete document.body.dataset.panel;
    for (const button of document.querySelectorAll("[data-panel-button]")) {
      button.setAttribute("aria-pressed", button.dataset.panelButton === open ? "true" : "false");
    }
    const log = open === "log" ? document.querySelector(".log-panel ol.log")
      : open === "chat" ? document.querySelector(".chat-panel ol.chat-lines") : null;
    if (log) log.scrollTop = log.scrollHeight; // drawn while closed: scrolled to its top
    if (open === "chat" && this.chatUnread) {
      this.chatUnread = 0;
      this.render();
    }
    this.measureControls();
  }

  /** On a phone the action bar is fixed at the bottom of the screen: the page keeps its height
   *  free below the table and above it the panels (`--controls-h`, naiko.css). */
  measureControls() {
    const bar = this.screen === "table" ? this.elements.main.querySelector(".controls") : null;
    const height = `${bar ? bar.offsetHeight : 0}px`;
    if (document.body.style.getPropertyValue("--controls-h") !== height) {
      document.body.style.setProperty("--controls-h", height);
    }
  }

  /** Every 200 ms: countdown rings and texts (their deadlines are data attributes). */
  tick() {
    const now = this.nowMs();
    for (const svg of document.querySelectorAll("svg[data-deadline]")) {
      const deadline = Number(svg.dataset.deadline);
      const total = Number(svg.dataset.total) || 1;
      setRing(svg, (deadline - now) / total);
    }
    for (const el of document.querySelectorAll("[data-countdown-ms]")) {
      const left = secondsLeft(Number(el.dataset.countdownMs), now);
      const text = left <= 0 && el.dataset.expired ? el.dataset.expired
        : el.dataset.format === "clock" ? clock(left) : el.dataset.format === "n" ? String(left) : `${left}s`;
      if (el.textContent !== text) el.textContent = text;
    }
  }

  /**
   * Issue 25, local mode: what the server notified this player's devices of while the page was
   * away (its connection gone), shown once as a toast when it connects again: the newest, in
   * the player's language as the server wrote it. Seen ones are counted per player in
   * localStorage.
   */
  async showMissedNotifications() {
    if (!this.notifications) return;
    let answer;
    try {
      answer = await this.notifications();
    } catch {
      return; // the local endpoint is a convenience: nothing to show
    }
    const key = `naiko.notifications.${this.playerId}`;
    const seen = Number(localStorage.getItem(key) || 0);
    const total = Number(answer.total || 0);
    localStorage.setItem(key, String(total));
    const last = (answer.notifications || []).at(-1);
    if (last && total > seen) this.toast(`🔔 ${last.title}: ${last.body}`);
  }

  toast(text, error = false) {
    const toast = this.elements.toast;
    toast.textContent = text;
    toast.dataset.kind = error ? "error" : "info";
    toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { toast.hidden = true; }, error ? 6000 : 3500);
  }
}
