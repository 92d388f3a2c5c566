// The websocket to the room, reconnecting on its own after a drop. Resuming the tables (login with the token,
// then "resume" with the last seq) is the app's job: it is told through onStatus(status, {wasOpen, moved}) with
// status "open", "lost" (a drop), "moving" (the node is stopping: its "reconnect" message, or close code 1012),
// "quiet" (the room closed a socket that was not logged in: after a logout elsewhere, code 4401, or when nobody
// logged in for a while, code 4408; the client reconnects at once and says nothing) or "retrying" (another try
// failed).
//
// A quiet move (the room's "table_node": the table we sit at is held by another node): a socket is opened there
// while this one stays open, so that nobody at the table hears us leave; once open it becomes the socket (status
// "switched": the app logs in on it) and the old one is closed after the login (finishMove). If the new socket
// cannot open, nothing changes.
//
// Where to reconnect: a room may run on several nodes (docs/protocol.md, "Several nodes"). The addresses tried,
// in turn, are those of the room's "reconnect" message when moving (then the page's own origin, which behind a
// load balancer reaches any live node); after a plain drop, the address just lost first, then every node of
// hello.nodes, then the origin. After each full round the pause grows: 1, 2, 4 ... 10 s (a move starts at once).

const PING_EVERY_MS = 25000;
const BETWEEN_ADDRESSES_MS = 250;
const SERVICE_RESTART = 1012; // websocket close code: the server is restarting or handing over
// The session ended elsewhere; no login in time; a moderator removed or banned the user; the account was deleted
// (docs/protocol.md). The next socket is a fresh start, without the token.
const QUIET_CLOSES = new Set([4401, 4408, 4403, 4410]);

export class Net {
  constructor({ onMessage, onStatus }) {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.address = null; // the address of the current socket
    this.attempt = 0; // tries since the last open socket closed
    this.wasOpen = false;
    this.pingTimer = null;
    this.retryTimer = null;
    this.nodes = []; // hello.nodes: every live node's address
    this.moveTo = null; // the addresses of the room's "reconnect" message, until the socket closes
    this.moving = false; // this round of tries follows a node's "reconnect" (or close code 1012)
    this.quiet = false; // this round follows a quiet close (4401, 4408): the next socket is a fresh start
    this.candidates = [];
    this.leaving = null; // during a quiet move: the old socket, closed once logged in on the new one
  }

  originAddress() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  // The room's hello lists its live nodes.
  setNodes(nodes) {
    this.nodes = Array.isArray(nodes) ? nodes.filter((n) => typeof n === "string") : [];
  }

  // The room's "reconnect": this node is stopping; the close that follows starts a move to one of these.
  moveAway(nodes) {
    this.moveTo = Array.isArray(nodes) ? nodes.filter((n) => typeof n === "string") : [];
  }

  // Addresses to try in turn, without repeats; a page served over https cannot open a plain ws: socket.
  candidateList(moving) {
    const origin = this.originAddress();
    const list = moving ? [...(this.moveTo || []), ...this.nodes, origin]
      : [this.address || origin, ...this.nodes, origin];
    const usable = list.filter((a) => location.protocol !== "https:" || a.startsWith("wss:"));
    return [...new Set(usable.length ? usable : [origin])];
  }

  connect(address = this.originAddress()) {
    clearTimeout(this.retryTimer);
    this.address = address;
    let ws;
    try {
      ws = new WebSocket(address);
    } catch {
      // A malformed address in a node list: count it as a failed try.
      this.ws = null;
      this.scheduleRetry({ code: 1006 });
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      const moved = this.moving;
      const fresh = this.quiet;
      this.attempt = 0;
      this.moving = false;
      this.quiet = false;
      this.moveTo = null;
      this.onStatus("open", { wasOpen: this.wasOpen && !fresh, moved });
      this.wasOpen = true;
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_EVERY_MS);
    });
    ws.addEventListener("message", (event) => this.receive(event));
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.scheduleRetry(event);
    });
  }

  receive(event) {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message && message.type === "batch" && Array.isArray(message.messages)) {
      // Protocol 3: one table step's messages in one frame, in order.
      for (const part of message.messages) this.onMessage(part);
    } else {
      this.onMessage(message);
    }
  }

  // The room's "table_node": open a socket to ``address`` beside this one (see the top of this file).
  moveQuietly(address) {
    if (this.leaving || !this.open || address === this.address) return;
    if (location.protocol === "https:" && !address.startsWith("wss:")) return;
    let ws;
    try {
      ws = new WebSocket(address);
    } catch {
      return;
    }
    const old = this.ws;
    ws.addEventListener("open", () => {
      if (this.ws !== old || !this.open) {
        ws.close(); // the old socket dropped meanwhile: its own reconnection goes on
        return;
      }
      this.leaving = old;
      this.ws = ws;
      this.address = address;
      this.onStatus("switched", { wasOpen: true, moved: false });
    });
    ws.addEventListener("message", (event) => this.receive(event));
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return; // it never opened: the move did not happen
      this.finishMove(); // it closed before the login there: the old one goes too, and a reconnection follows
      this.scheduleRetry(event);
    });
  }

  // Logged in on the new node: the old socket closes (the tables' resume covers what it still carried).
  finishMove() {
    const old = this.leaving;
    this.leaving = null;
    if (old) old.close();
  }

  scheduleRetry(event) {
    clearInterval(this.pingTimer);
    if (this.attempt === 0) {
      // The socket that was open (or the very first one) has closed: decide where to go this time.
      this.moving = this.moveTo !== null || event.code === SERVICE_RESTART;
      this.candidates = this.candidateList(this.moving);
      this.quiet = !this.moving && QUIET_CLOSES.has(event.code);
      const status = this.quiet ? "quiet" : this.moving ? "moving" : "lost";
      this.onStatus(status, { wasOpen: this.wasOpen, moved: false });
    } else {
      this.onStatus("retrying", { wasOpen: this.wasOpen, moved: false });
    }
    const count = this.candidates.length;
    const index = this.attempt % count;
    const round = Math.floor(this.attempt / count);
    let delay;
    if (index !== 0) delay = BETWEEN_ADDRESSES_MS;
    else if (this.quiet && round === 0) delay = 0;
    else if (this.moving) delay = round === 0 ? 0 : Math.min(10000, 500 * 2 ** (round - 1));
    else delay = Math.min(10000, 1000 * 2 ** round);
    const address = this.candidates[index];
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(address), delay);
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  // During a quiet move, everything but the login goes on the old socket, still logged in, until finishMove.
  send(message) {
    const ws = this.leaving && message.type !== "login" ? this.leaving : this.ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(message));
    return true;
  }

  // For tests and for a "reconnect now" command: drop the socket as a network failure would.
  drop() {
    if (this.ws) this.ws.close();
  }
}
