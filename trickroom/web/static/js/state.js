// The client's shared state and the player's remembered preferences (localStorage).

const PREFS_KEY = "trickroom.prefs";
const TOKEN_KEY = "trickroom.token";

// The browser's language if the room speaks it (the server refuses, and the page falls back to, any other).
const DEFAULT_PREFS = {
  lang: (navigator.language || "en").toLowerCase().slice(0, 2),
  speech: "live",
  verbosity: { game: "full", chat: "full", system: "full" },
  sound: true,
  volume: 60,
  contrast: false,
  large: false,
  botLevel: "easy",
  // Which tables the lobby lists (the room's lobby_tables): "open", those waiting for players and the player's
  // own, with a count of the others; "all" with "Show the tables in play" (docs/web.md).
  lobbyTables: "open",
};

export function loadPrefs() {
  let stored = {};
  try {
    stored = JSON.parse(localStorage.getItem(PREFS_KEY) || "{}") || {};
  } catch {
    stored = {};
  }
  return { ...DEFAULT_PREFS, ...stored, verbosity: { ...DEFAULT_PREFS.verbosity, ...(stored.verbosity || {}) } };
}

export function savePrefs(prefs) {
  try {
    localStorage.setItem(PREFS_KEY, JSON.stringify(prefs));
  } catch {
    // private browsing: preferences last for this page only
  }
}

// The lobby's scope sent to the room at every login and when the checkbox changes: "open" unless "all" was chosen.
export function lobbyScope() {
  return state.prefs.lobbyTables === "all" ? "all" : "open";
}

// Who the lobby lists, sent at every login: "auto", everyone while the room is small, their count in a busy room.
export const LOBBY_PEOPLE = "auto";

// Whether the room counts its people instead of listing them (a busy room, docs/web.md): then names are typed.
export function peopleCounted() {
  return state.lobby.people === "counted";
}

export function loadToken() {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function saveToken(token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    // ignore
  }
}

export const state = {
  prefs: loadPrefs(),
  screen: "signin",
  hello: null,
  user: null,
  token: loadToken(),
  // inPlay: the room's in_play, how many public tables are in play (an open lobby's; 0 when it lists them all).
  // online: how many people are online, the player among them (the room's count, null before its first lobby);
  // people: "listed" (users is everyone, kept up to date) or "counted" (a busy room: users is empty, or the list
  // the player asked for with "List everyone online", as it was then; peopleAsked is that request's id).
  lobby: { users: [], tables: new Map(), inPlay: 0, online: null, people: null, peopleAsked: null },
  followingLobby: true, // the room sends the lobby's changes (protocol 2: not while we show a table)
  table: null, // {id, info, you, view, legal, to_act, deadline, standings}
  lastSeq: {}, // table id -> last journal seq received
  connection: "connecting", // the top bar's status: connecting, online, offline
  reconnecting: false,
  switching: false, // a quiet move to our table's node: logging in on the new socket (net.js)
  tableNodeFollowed: null, // the last "table_node" followed: {table, at}
  quietResumes: new Set(), // tables resumed after a quiet move, until their snapshot
  motdSaid: null, // the message of the day last said (said again only when it changes)
  moving: false, // the connection just opened is a move to another node (or the same one, restarted)
  movedTables: new Set(), // tables resumed after a move: "Back at the table." when their snapshot comes
  // Tables being resumed, until their snapshot: table id -> { after: the seq the resume asked from, quiet: after a
  // page load (missed messages go to the history only), live: the seqs that came live meanwhile, missed: the
  // missed sentences held back (after a drop) }.
  catchUp: new Map(),
  pendingSit: null, // table id to sit at once its snapshot arrives
  pendingJoin: null, // {id, table, sit, name}: a watch sent with a password, asked again if it is wrong
  pendingResumes: new Map(), // resume request id -> table id: a refused resume leaves that table's screen
  // The act sent and not yet answered ({type: "act", table, action, move, id}); sent again after a reconnect,
  // where its `move` lets the room apply it at most once (docs/protocol.md, "Several nodes").
  pendingAct: null,
  invitedTables: new Set(), // tables this player was invited to: no password asked
  pendingStats: null, // the id of the statistics view's "stats" request
  pendingGames: null, // the id of the "my games" request
  // The replay being watched: {table, info: {title, name, seats, you, hands, total}, steps: Map, position, target}.
  replay: null,
  pendingExport: null, // {id, kind: "history" | "transcript", table}: a download asked for
  pendingReview: null,
  reviewed: null, // {table, hand, seat} of the review in the review dialog
  nextId: 1,
};

export function newId() {
  state.nextId += 1;
  return `c${state.nextId}`;
}
