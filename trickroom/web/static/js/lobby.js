// The lobby screen: the list of tables (join, watch, a finished table's replay) and who is online, kept up to
// date from the room's lobby messages; "Show the tables in play" (the lobby's scope) and the count of the tables
// it leaves out; in a busy room the count of people online and "List everyone online"; joining a table (with its
// password), creating one, the quick game (Q) and the statistics view.

import { openTableDialog } from "./forms.js";
import { askPassword } from "./host.js";
import { t, tn } from "./i18n.js";
import { openGames, openReplay } from "./replay.js";
import { net, sounds, speech } from "./services.js";
import { logout } from "./session.js";
import { lobbyScope, newId, peopleCounted, savePrefs, state } from "./state.js";
import { onStats, requestStats } from "./stats.js";
import { rememberBotLevel, sendTable } from "./table_actions.js";

const $ = (id) => document.getElementById(id);

export function renderLobby() {
  const container = $("tables");
  const tables = [...state.lobby.tables.values()];
  const focusedId = container.contains(document.activeElement) ? document.activeElement.id : null;
  container.replaceChildren();
  // The room's in_play counts every public table in play, the player's own (which an open lobby lists) among
  // them: the line says how many the list leaves out.
  const inPlay = Math.max(0, state.lobby.inPlay -
    tables.filter((entry) => !entry.private && entry.status !== "waiting").length);
  if (!tables.length) {
    // An open lobby with nothing waiting: say that much (the tables in play are counted under the list).
    const p = document.createElement("p");
    p.textContent = t(inPlay > 0 ? "lobby.no_open_tables" : "lobby.no_tables");
    container.append(p);
  } else {
    const table = document.createElement("table");
    const caption = document.createElement("caption");
    caption.className = "sr-only";
    caption.textContent = t("lobby.tables");
    const head = document.createElement("thead");
    const headRow = document.createElement("tr");
    for (const key of ["col.name", "col.game", "col.options", "col.seats", "col.status", "col.actions"]) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = t(key);
      headRow.append(th);
    }
    head.append(headRow);
    const body = document.createElement("tbody");
    for (const entry of tables) {
      const row = document.createElement("tr");
      const nameCell = document.createElement("th");
      nameCell.scope = "row";
      nameCell.textContent = entry.name + (entry.password ? " 🔒" : "");
      row.append(nameCell);
      for (const text of [entry.title, entry.options_text, t("seats_taken", { taken: entry.taken, seats: entry.seats }),
                          t(`room:status.${entry.status}`)]) {
        const td = document.createElement("td");
        td.textContent = text;
        row.append(td);
      }
      const actions = document.createElement("td");
      actions.className = "row-actions";
      const join = document.createElement("button");
      join.type = "button";
      join.id = `join-${entry.id}`;
      join.textContent = t("join");
      join.setAttribute("aria-label", t("join_named", { name: entry.name }));
      join.addEventListener("click", () => joinTable(entry.id, true));
      const watch = document.createElement("button");
      watch.type = "button";
      watch.id = `watch-${entry.id}`;
      watch.textContent = t("watch");
      watch.setAttribute("aria-label", t("watch_named", { name: entry.name }));
      watch.addEventListener("click", () => joinTable(entry.id, false));
      if (entry.status === "finished") {
        // A finished game has no seat to take nor play to watch: its replay instead.
        const replay = document.createElement("button");
        replay.type = "button";
        replay.id = `replay-${entry.id}`;
        replay.textContent = t("lobby.replay");
        replay.setAttribute("aria-label", t("replay_named", { name: entry.name }));
        replay.addEventListener("click", () => openReplay(entry.id));
        actions.append(replay);
      } else actions.append(join, watch);
      row.append(actions);
      body.append(row);
    }
    table.append(caption, head, body);
    container.append(table);
  }
  if (focusedId) $(focusedId)?.focus();
  // The count is read, not spoken: it changes whenever a game starts or ends somewhere in the room.
  const line = $("in-play");
  line.hidden = !(inPlay > 0);
  line.textContent = inPlay > 0 ? tn("lobby.in_play", inPlay, { n: inPlay }) : "";
  $("show-in-play").checked = lobbyScope() === "all";
  renderPeople();
}

// Who is online: everyone, or in a busy room their count (shown, never spoken: it changes with every arrival) and
// the button that lists them once; the private message's choice of person follows the same list, and a busy
// room's is typed.
function renderPeople() {
  const counted = peopleCounted();
  $("people-counted").hidden = !counted;
  const count = state.lobby.online ?? 0;
  $("online-count").textContent = counted ? tn("lobby.online_count", count, { n: count }) : "";
  for (const el of document.querySelectorAll(".private-name")) el.hidden = !counted;
  const online = $("online");
  online.replaceChildren();
  const select = $("private-to");
  const chosen = select.value;
  select.replaceChildren();
  for (const user of state.lobby.users) {
    const li = document.createElement("li");
    li.textContent = user.name + (state.user && user.id === state.user.id ? ` ${t("you_suffix")}` : "");
    online.append(li);
    if (state.user && user.id === state.user.id) continue;
    const option = document.createElement("option");
    option.value = user.id;
    option.textContent = user.name;
    select.append(option);
  }
  if (chosen) select.value = chosen;
  // With nobody to choose from (a busy room before its list is asked for), the name field alone.
  const empty = !select.options.length && counted;
  select.hidden = empty;
  select.labels[0].hidden = empty;
}

// A table with a password asks for it first, unless this player was invited (or is already a member, as after a
// reload). A wrong password is said by the room and the question comes again, with the room's sentence in it.
export function joinTable(id, sit, password) {
  const entry = state.lobby.tables.get(id);
  if (password === undefined && entry?.password && !state.invitedTables.has(id)) {
    askPassword({ name: entry.name, onSubmit: (typed) => joinTable(id, sit, typed) });
    return;
  }
  state.pendingSit = sit ? id : null;
  const message = { type: "watch", table: id, id: newId() };
  if (password !== undefined) message.password = password;
  // Kept until the snapshot or an error answers it: "needs a password" (a lobby list out of date) asks for it too.
  state.pendingJoin = { id: message.id, table: id, sit, name: entry?.name || id };
  net.send(message);
}

// N and the New table button.
export function openCreateTable() {
  openTableDialog("create", { onCreate: createTable, say: (text) => speech.review(text) });
}

function createTable(result) {
  rememberBotLevel(result.botLevel);
  const message = { type: "create", game: result.game, options: result.options, private: result.private,
                    timer: result.timer, bot_delay: result.bot_delay, hints: result.hints, id: newId() };
  if (result.name) message.name = result.name;
  if (result.password) message.password = result.password;
  state.pendingCreate = { id: message.id, sit: result.sit };
  // The quick game (Q) plays this game and these options again (remembered in this browser).
  state.prefs.quickGame = { game: result.game, options: result.options, timer: result.timer,
                            bot_delay: result.bot_delay, hints: result.hints };
  savePrefs(state.prefs);
  net.send(message);
}

// Q in the lobby: a new table of the last game created here (Bura for two the first time), the player seated,
// bots of the last level in the other seats, and the game started: the existing create, sit, bot_add and start.
export function quickGame() {
  const last = state.prefs.quickGame || { game: "bura", options: { players: 2 } };
  const message = { type: "create", game: last.game, options: last.options || {}, id: newId() };
  for (const field of ["timer", "bot_delay", "hints"]) if (last[field] !== undefined) message[field] = last[field];
  state.pendingCreate = { id: message.id, sit: true, quick: true };
  net.send(message);
}

// The quick table's snapshot: sit, fill the other free seats with bots, start.
export function startQuickGame(info) {
  const free = (info.seats || []).filter((s) => !s.user && !s.bot).map((s) => s.seat);
  if (!free.length) return;
  sendTable({ type: "sit", seat: free[0] });
  for (const seat of free.slice(1)) sendTable({ type: "bot_add", level: state.prefs.botLevel, seat });
  sendTable({ type: "start" });
}

function sayStats(text) {
  speech.say(text, { channel: "system", always: true });
}

export function openStats() {
  requestStats({ send: (message) => net.send(message), say: sayStats, newId });
}

// "Show the tables in play": remembered in this browser, and the room asked for the list in that scope (its
// snapshot replaces the list; every later login sends the scope too).
function onShowInPlay(event) {
  state.prefs.lobbyTables = event.target.checked ? "all" : "open";
  savePrefs(state.prefs);
  net.send({ type: "lobby", tables: lobbyScope() });
}

// "List everyone online" (a busy room's lobby): the room's list as it is now, asked for once; the answer fills the
// list (not kept up to date: nobody's coming or going is heard) and says how many are listed.
function listPeople() {
  const id = newId();
  if (net.send({ type: "people", id })) state.lobby.peopleAsked = id;
}

// The room became busy (it counts its people) or quiet again (it lists them): said once, briefly, as presence
// is (not in brief verbosity). The first lobby after the page loads says nothing: the count line shows it.
function sayPeopleTurn(before) {
  const now = state.lobby.people;
  if (!before || !now || before === now) return;
  speech.say(t(now === "counted" ? "lobby.people_counted" : "lobby.people_listed"),
             { channel: "system", essential: false });
}

// The lobby's buttons.
export function wireLobby() {
  $("show-in-play").checked = lobbyScope() === "all";
  $("show-in-play").addEventListener("change", onShowInPlay);
  $("create-button").addEventListener("click", openCreateTable);
  $("quick-button").addEventListener("click", quickGame);
  $("refresh-button").addEventListener("click", () => net.send({ type: "lobby" }));
  $("list-people").addEventListener("click", listPeople);
  $("stats-button").addEventListener("click", openStats);
  $("games-button").addEventListener("click", openGames);
  $("stats-games").addEventListener("click", () => {
    $("stats-dialog").close();
    openGames();
  });
  $("logout-button").addEventListener("click", logout);
}

export const lobbyHandlers = {
  lobby(m) {
    const before = state.lobby.people;
    state.lobby.users = m.users || [];
    state.lobby.tables = new Map((m.tables || []).map((e) => [e.id, e]));
    state.lobby.inPlay = m.in_play || 0; // only an open lobby's snapshot has it
    // An "auto" lobby's (every login asks for one): how many are online, and whether users lists them.
    state.lobby.online = typeof m.online === "number" ? m.online : state.lobby.users.length;
    state.lobby.people = m.people === "counted" ? "counted" : "listed";
    renderLobby();
    sayPeopleTurn(before);
  },
  // The answer to "List everyone online": everyone as of now, once.
  people(m) {
    if (m.re !== state.lobby.peopleAsked) return;
    state.lobby.peopleAsked = null;
    state.lobby.users = m.users || [];
    if (typeof m.online === "number") state.lobby.online = m.online;
    renderLobby();
    const n = state.lobby.users.length;
    speech.say(tn("lobby.people_listed_now", n, { n }), { channel: "system", always: true });
  },
  presence(m) {
    const users = state.lobby.users.filter((u) => u.id !== m.user.id);
    if (m.online) users.push(m.user);
    users.sort((a, b) => a.name.localeCompare(b.name));
    state.lobby.users = users;
    renderLobby();
    sounds.play(m.online ? "join" : "leave");
    speech.say(m.text, { channel: "system", essential: false });
  },
  table_listed(m) {
    state.lobby.tables.set(m.entry.id, m.entry);
    renderLobby();
  },
  table_unlisted(m) {
    state.lobby.tables.delete(m.id);
    renderLobby();
  },
  // Protocol 2: the lobby's changes since the last batch, each table and person once.
  lobby_batch(m) {
    // An open lobby's batch carries the count of tables in play (alone, when only that changed).
    for (const id of m.unlisted || []) state.lobby.tables.delete(id);
    for (const entry of m.listed || []) state.lobby.tables.set(entry.id, entry);
    if (typeof m.in_play === "number") state.lobby.inPlay = m.in_play;
    // An "auto" lobby's batch carries the count of people online (alone, when only that changed); a busy room's
    // batches have no presence, and its list (if asked for) stays as it was.
    if (typeof m.online === "number") state.lobby.online = m.online;
    const presence = m.presence || [];
    if (presence.length) {
      const gone = new Set(presence.map((p) => p.user.id));
      const users = state.lobby.users.filter((u) => !gone.has(u.id));
      for (const p of presence) if (p.online) users.push(p.user);
      users.sort((a, b) => a.name.localeCompare(b.name));
      state.lobby.users = users;
    }
    renderLobby();
    for (const p of presence) {
      sounds.play(p.online ? "join" : "leave");
      speech.say(p.text, { channel: "system", essential: false });
    }
  },
  invited(m) {
    state.invitedTables.add(m.table);
    if (m.entry) state.lobby.tables.set(m.entry.id, m.entry);
    renderLobby();
    sounds.play("join");
    speech.say(m.text, { channel: "system" });
  },
  stats(m) {
    onStats(m, { say: sayStats });
  },
};
