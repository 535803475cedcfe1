// The WebSocket client of a game page (docs/server-protocol.md, "The WebSocket"):
// reconnects with back-off, keeps the version and asks for a sync on a gap, resends an
// unacknowledged action with the same idempotency key after a reconnect, and shows the
// "connection lost" banner while down.

import { freshKey } from "./api.js";

/** Close codes after which reconnecting cannot help (unknown game, a token that holds no seat). */
const FINAL_CLOSE_CODES = new Set([4403, 4404]);

export class Connection {
  /**
   * @param {object} options
   * @param {string} options.gameId
   * @param {string|null} options.token  the seat token (null: a spectator)
   * @param {(message: object) => void} options.onMessage  every message, in order
   * @param {HTMLElement|null} options.banner  shown while the connection is down
   */
  constructor({ gameId, token, onMessage, banner }) {
    this.gameId = gameId;
    this.token = token;
    this.onMessage = onMessage;
    this.banner = banner;
    this.version = null;
    this.pending = null;      // the action sent and not yet acknowledged
    this.syncing = false;     // a sync was asked for a gap and has not arrived
    this.attempts = 0;
    this.closed = false;
    this.socket = null;
    this.timer = null;
    this.watchNetwork();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = this.token ? "?token=" + encodeURIComponent(this.token) : "";
    return `${scheme}//${location.host}/ws/${encodeURIComponent(this.gameId)}${query}`;
  }

  /** Follow the browser's network state: drop at once when it goes offline, retry when back. */
  watchNetwork() {
    window.addEventListener("offline", () => this.abandon("offline"));
    window.addEventListener("online", () => {
      if (this.closed || this.connected) return;
      this.attempts = 0;
      if (this.socket) this.abandon("retry", 0);
      else this.retry(0);
    });
  }

  open() {
    this.closed = false;
    clearTimeout(this.timer);
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (this.socket !== socket) return;
      this.attempts = 0;
      this.showBanner(false);
      if (this.pending) socket.send(JSON.stringify(this.pending));
    });
    socket.addEventListener("message", (event) => {
      if (this.socket === socket) this.receive(event.data);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.closed) return;
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.closed = true;
        return;
      }
      this.retry();
    });
  }

  /** Give the current socket up at once (no waiting for a closing handshake) and retry. */
  abandon(reason, delay) {
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      try {
        socket.close(4000, reason);
      } catch (error) {
        // already closed
      }
    }
    if (!this.closed) this.retry(delay);
  }

  /** Show the banner and open again after a back-off (0.5 s doubling to 10 s, jittered). */
  retry(delay) {
    this.showBanner(true);
    const wait = delay ?? Math.min(10000, 500 * 2 ** this.attempts) * (0.75 + Math.random() / 2);
    this.attempts += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), wait);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.socket) this.socket.close();
  }

  /** Drop the connection as if the network failed (it reconnects). */
  drop() {
    this.abandon("dropped");
  }

  showBanner(down) {
    if (this.banner) this.banner.hidden = !down;
  }

  get connected() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  /** Send a message now (dropped while down: the sync on reconnect brings the news). */
  send(message) {
    if (!this.connected) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Send an action-like message with a fresh idempotency key; resent until acknowledged. */
  act(message) {
    const sent = { ...message, key: freshKey() };
    this.pending = sent;
    this.send(sent);
    return sent.key;
  }

  /** Ask for a full sync (of held seat `seat`, if given). */
  sync(seat) {
    this.send(seat === undefined || seat === null ? { type: "sync" } : { type: "sync", seat });
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch (error) {
      return;
    }
    if (message.type === "sync") {
      this.version = message.version;
      this.syncing = false;
    } else if (message.type === "update") {
      if (this.version !== null && message.version !== this.version + 1) {
        if (message.version <= this.version) return;   // an old update: already seen
        if (!this.syncing) {
          this.syncing = true;
          this.sync();
        }
        return;
      }
      this.version = message.version;
    } else if (message.type === "ack" || message.type === "error" || message.type === "left") {
      if (this.pending && message.key === this.pending.key) this.pending = null;
    }
    this.onMessage(message);
  }
}
