// The websocket to the room, reconnecting on its own after a drop (1 s, 2 s, 4 s ... up to 10 s between tries).
// Resuming the tables (login with the token, then "resume" with the last seq) is the app's job: it is told
// through onStatus("open" | "lost" | "retrying").

const PING_EVERY_MS = 25000;

export class Net {
  constructor({ onMessage, onStatus }) {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.attempt = 0;
    this.wasOpen = false;
    this.pingTimer = null;
    this.retryTimer = null;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  connect() {
    clearTimeout(this.retryTimer);
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.attempt = 0;
      this.onStatus("open", this.wasOpen);
      this.wasOpen = true;
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_EVERY_MS);
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onMessage(message);
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      clearInterval(this.pingTimer);
      this.onStatus(this.attempt === 0 ? "lost" : "retrying", this.wasOpen);
      const delay = Math.min(10000, 1000 * 2 ** this.attempt);
      this.attempt += 1;
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  send(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  // For tests and for a "reconnect now" command: drop the socket as a network failure would.
  drop() {
    if (this.ws) this.ws.close();
  }
}
