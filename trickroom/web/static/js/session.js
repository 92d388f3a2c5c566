// The session with the room: signing in (as a guest or with an account) and out, the room's hello and welcome
// (which resume the tables the player was at), a move to another node, and the connection status in the top
// bar with what is said when the connection drops and comes back.

import { lang, t } from "./i18n.js";
import { openReplay, replayFromLink } from "./replay.js";
import { setLanguage, show } from "./screens.js";
import { net, speech } from "./services.js";
import { LOBBY_PEOPLE, lobbyScope, newId, saveToken, state } from "./state.js";

const $ = (id) => document.getElementById(id);
const TABLE_NODE_EVERY_MS = 60000;

// A plain drop says "Connection lost. Reconnecting." and, once back, "Reconnected."; a move to another node
// (the room's "reconnect", or a restart) is no error: "Moving to another server…", then "Back at the table." when
// the table's snapshot has come (the missed messages are spoken before it).
export function onStatus(status, { wasOpen, moved }) {
  if (status === "switched") {
    // A quiet move to the node of our table (net.js): nothing is said; the login on the new socket follows its hello.
    state.switching = true;
    return;
  }
  state.switching = false; // (a move whose new socket closed before the login there ends as a drop)
  state.connection = status === "open" ? "online" : "offline";
  renderConnStatus();
  if (status === "open") {
    state.reconnecting = wasOpen;
    state.moving = Boolean(wasOpen && moved);
    return;
  }
  if (status === "lost") speech.say(t("speech.lost"), { channel: "system", assertive: true, always: true });
  if (status === "moving") speech.say(t("speech.moving"), { channel: "system", assertive: true, always: true });
}

// The top bar's connection status, in the current language (it is relabelled when the language changes).
export function renderConnStatus() {
  const conn = $("conn-status");
  conn.textContent = t({ connecting: "speech.connecting", online: "conn.online", offline: "conn.offline" }[state.connection]);
  conn.classList.toggle("offline", state.connection === "offline");
}

// Every login (a guest, an account, the remembered token) and a new account say which tables the lobby lists,
// and that a busy room may count its people instead of listing them.
export function login(fields) {
  net.send({ type: "login", protocol: 3, lang: lang(), lobby_tables: lobbyScope(), lobby_people: LOBBY_PEOPLE,
             id: newId(), ...fields });
}

export function logout() {
  net.send({ type: "logout" });
  state.user = null;
  state.table = null;
  state.token = null;
  saveToken(null);
  show("signin", { focus: true });
}

// The sign-in screen's forms and its language menu.
export function wireSignin() {
  $("guest-form").addEventListener("submit", (event) => {
    event.preventDefault();
    login({ nickname: $("guest-nickname").value.trim() });
  });
  $("account-form").addEventListener("submit", (event) => {
    event.preventDefault();
    login({ username: $("account-username").value.trim(), password: $("account-password").value });
  });
  $("register-button").addEventListener("click", () => {
    net.send({ type: "register", protocol: 3, lang: lang(), lobby_tables: lobbyScope(), lobby_people: LOBBY_PEOPLE,
               username: $("account-username").value.trim(), password: $("account-password").value, id: newId() });
  });
  $("signin-lang").addEventListener("change", (event) => setLanguage(event.target.value));
}

export const sessionHandlers = {
  // The first hello makes the sign-in usable: focus goes to the nickname then, once a login can be sent.
  hello(m) {
    const first = !state.hello;
    state.hello = m;
    net.setNodes(m.nodes);
    // A quiet move to our table's node: no lobby (the table stays on screen), as the table's screen asks anyway.
    if (state.token) login(state.switching ? { token: state.token, follow_lobby: false } : { token: state.token });
    else show("signin", { focus: first });
  },
  // The room is busy: our login waits in line, and its welcome comes when our turn does. Said, and shown under
  // the forms until then.
  line(m) {
    const shown = $("signin-line");
    shown.textContent = m.text;
    shown.hidden = false;
    speech.say(m.text, { channel: "system" });
  },
  welcome(m) {
    $("signin-line").hidden = true;
    state.user = m.user;
    state.followingLobby = !state.switching; // a new login follows the lobby (its snapshot comes next)
    state.roomPrefs = m.preferences || {};
    state.token = m.token;
    saveToken(m.token);
    if (m.preferences?.lang !== lang()) net.send({ type: "preferences", lang: lang() });
    const tables = new Set(m.tables || []);
    if (state.table) tables.add(state.table.id);
    const switched = state.switching;
    if (switched) {
      net.finishMove(); // the old socket closes; the resumes below bring what it did not deliver
      state.switching = false;
      for (const id of tables) state.quietResumes.add(id);
    } else if (state.moving) {
      // Said when each table's snapshot arrives; with no table, at once.
      for (const id of tables) state.movedTables.add(id);
      if (!tables.size) speech.say(t("speech.moved_lobby"), { channel: "system", assertive: true, always: true });
    } else if (state.reconnecting) {
      speech.say(t("speech.reconnected"), { channel: "system", assertive: true, always: true });
    } else speech.say(m.text, { channel: "system" });
    for (const id of tables) {
      const after = state.lastSeq[id] || 0;
      // After a page load (nothing seen yet) the missed messages go to the history unspoken (quiet).
      const quiet = !state.reconnecting && !switched && !(id in state.lastSeq);
      state.catchUp.set(id, { after, quiet, live: new Set(), missed: [] });
      const request = newId();
      state.pendingResumes.set(request, id);
      net.send({ type: "resume", table: id, after, id: request });
    }
    const linked = replayFromLink();
    if (linked && !state.replay) openReplay(linked); // a shared link: the replay, for whoever may see it
    if (!state.table && !state.replay) show("lobby", { focus: !state.reconnecting && !switched });
    state.reconnecting = false;
    state.moving = false;
  },
  // This node is stopping: the close that follows moves to another one (net.js); nothing to say yet.
  reconnect(m) {
    net.moveAway(m.nodes);
  },
  // The table we sit at is held by another node: move there quietly (net.js), at most once a minute per table,
  // so that a misconfigured address cannot send us back and forth.
  table_node(m) {
    if (!state.table || state.table.id !== m.table || typeof m.url !== "string") return;
    const last = state.tableNodeFollowed;
    if (last && last.table === m.table && Date.now() - last.at < TABLE_NODE_EVERY_MS) return;
    state.tableNodeFollowed = { table: m.table, at: Date.now() };
    net.moveQuietly(m.url);
  },
  preferences(m) {
    if (m.preferences) state.roomPrefs = m.preferences;
  },
};
