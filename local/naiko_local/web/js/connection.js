// connection.js: the Naiko WebSocket protocol seen from a client (docs/protocol.md).
//
// One NaikoConnection is one player's session with the WebSocket API:
//   * it connects to `<ws url>/?token=<token>` (the token is checked once, at the handshake);
//   * every request gets a fresh `request_id`, and `request()` returns a Promise of the reply
//     that carries the same id (`ack`, `error`, `snapshot`, `tables`, `account`, ...);
//   * every server message also goes to `onMessage`, so the table can apply `update`s;
//   * when the socket drops it reconnects by itself with backoff (0.5, 1, 2, 4, 8 s, then every
//     8 s) and calls `onOpen(again=true)`: the app then sends `snapshot` for the table it shows,
//     which marks the player back (R8.3) and brings the server's confirmed state.
//
// Tolerance of protocol additions: an `update` (or a `chat`, R8.9) that carries our `request_id`
// is treated as the reply to that request (a server may fold the `ack` into the update), and unknown message
// types and fields are passed through untouched.

import { tr } from "./i18n.js";

/** Reply types that answer a request (matched by `request_id`). */
const REPLY_TYPES = new Set([
  "ack", "error", "snapshot", "tables", "account", "table_found", "tournaments",
  "tournament", "tournament_players", "tournament_results", "standings", "hands", "hand", "update",
  "chat",
]);

/** Seconds to wait before each reconnection attempt; the last one repeats. */
export const RECONNECT_DELAYS = [0.5, 1, 2, 4, 8];

/** A request id: unique per request, 1-64 of `A-Z a-z 0-9 _ . : -` (protocol.md §2). */
export function newRequestId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return "w-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class NaikoConnection {
  /**
   * @param {object} options
   * @param {string} options.url        WebSocket URL without the query (ws://host:port/)
   * @param {() => Promise<string>|string} options.token  the token, or a function giving one
   *        (asked again before each reconnection: a local dev token may be re-minted)
   * @param {(message: object) => void} options.onMessage  every server message
   * @param {(again: boolean) => void} options.onOpen      the socket is open (again)
   * @param {(state: string, detail: string) => void} options.onStatus
   *        "connecting" | "online" | "offline" with a human-readable detail
   */
  constructor({ url, token, onMessage, onOpen, onStatus }) {
    this.url = url;
    this.token = token;
    this.onMessage = onMessage || (() => {});
    this.onOpen = onOpen || (() => {});
    this.onStatus = onStatus || (() => {});
    this.ws = null;
    this.pending = new Map(); // request_id -> {resolve, action}
    this.attempt = 0;
    this.everOpened = false;
    this.closedByUs = false;
    this.timer = null;
  }

  /** Open the socket (and keep it open until close()). */
  async connect() {
    this.closedByUs = false;
    this.onStatus("connecting", this.everOpened ? "reconnecting" : "connecting");
    let token;
    try {
      token = typeof this.token === "function" ? await this.token() : this.token;
    } catch (error) {
      this._scheduleReconnect(tr("no token: {error}", { error: error.message || error }));
      return;
    }
    const sep = this.url.includes("?") ? "&" : "?";
    const ws = new WebSocket(`${this.url}${sep}token=${encodeURIComponent(token)}`);
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      const again = this.everOpened;
      this.everOpened = true;
      this.attempt = 0;
      this.onStatus("online", again ? "reconnected" : "online");
      this.onOpen(again);
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return; // not JSON: nothing a client can do with it
      }
      if (message && typeof message === "object") this._dispatch(message);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this._failPending();
      if (this.closedByUs) return;
      // A refused handshake (401/403) looks like a close with code 1006 before onopen.
      const reason = event.code === 1006 ? tr("connection lost") : tr("closed ({code})", { code: event.code });
      this._scheduleReconnect(reason);
    };
    ws.onerror = () => {}; // onclose follows and handles it
  }

  /** Close for good (no reconnection). */
  close() {
    this.closedByUs = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000, "bye");
    this.ws = null;
  }

  get online() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /**
   * Send one request; resolves with its reply (an `error` reply resolves too: check `type`).
   * Resolves `{type: "lost"}` when the connection drops before the reply (the request may or
   * may not have been applied: the next snapshot shows it).
   * @param {string} action  a route of protocol.md §3
   * @param {object} fields  the request's other fields (never `request_id`)
   */
  request(action, fields = {}) {
    const request_id = newRequestId();
    const frame = { action, ...fields, request_id };
    return new Promise((resolve) => {
      if (!this.online) {
        resolve({ type: "lost", request_id, message: tr("not connected") });
        return;
      }
      this.pending.set(request_id, { resolve, action });
      this.ws.send(JSON.stringify(frame));
    });
  }

  _dispatch(message) {
    const id = message.request_id;
    if (id && this.pending.has(id) && REPLY_TYPES.has(message.type)) {
      const { resolve } = this.pending.get(id);
      this.pending.delete(id);
      // The table learns about the update too (onMessage below); the caller gets the reply.
      resolve(message);
    }
    this.onMessage(message);
  }

  _failPending() {
    for (const [request_id, { resolve }] of this.pending) {
      resolve({ type: "lost", request_id, message: tr("the connection dropped") });
    }
    this.pending.clear();
  }

  _scheduleReconnect(reason) {
    const delay = RECONNECT_DELAYS[Math.min(this.attempt, RECONNECT_DELAYS.length - 1)];
    this.attempt += 1;
    this.onStatus("offline", tr("{reason}: reconnecting in {delay}s", { reason, delay }));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay * 1000);
  }
}
