// trickroom's web client: screens (sign-in, lobby, table), the room's messages, speech, sounds and keys.
// The client renders and speaks; every rule decision (what is legal, who wins) comes from the server.

import { anyDialogOpen, closeDialog, openDialog } from "./dialog.js";
import { openSettings, openTableDialog } from "./forms.js";
import { askPassword, openBots, openInvite, openPeople } from "./host.js";
import { applyStatic, lang, setLang, t } from "./i18n.js";
import { handText, potText, scoresText, secondsLeft, stockText, timeText, trickText, turnText } from "./info.js";
import { Net } from "./net.js";
import { Sounds } from "./sound.js";
import { Speech } from "./speech.js";
import { onStats, requestStats } from "./stats.js";
import { newId, saveToken, savePrefs, state } from "./state.js";
import { getHand, initTableView, pauseLabel, renderTable } from "./table_view.js";

const $ = (id) => document.getElementById(id);
const speech = new Speech($("live-polite"), $("live-assertive"));
const sounds = new Sounds();
const net = new Net({ onMessage: (m) => onMessage(m), onStatus: (s, how) => onStatus(s, how) });

// Game events that stay spoken in "brief" mode; the rest (draws, "has answered"...) are details.
const ESSENTIAL_EVENTS = new Set(["deal", "hand", "cards", "play", "trick", "claim", "hand_end", "match_end",
  "announced", "redeal", "stock_closed", "bid", "exchange", "keep", "deal_complete", "meld", "throw_in",
  "extra_hands", "leave"]);
const ESSENTIAL_TABLE_EVENTS = new Set(["started", "finished", "sat", "stood", "left", "kicked", "banned",
  "bot_added", "bot_removed", "host", "paused", "resumed", "pause_requested", "pause_cancelled", "timeout",
  "bot_took_over", "took_back", "options"]);
const EVENT_SOUNDS = { play: "card", trick: "trick", claim: "claim", meld: "combo" };
const JOIN_KINDS = new Set(["sat", "joined", "bot_added", "reconnected", "took_back"]);
const LEAVE_KINDS = new Set(["stood", "left", "bot_removed", "kicked", "banned", "disconnected"]);

// ---------------------------------------------------------------------------------------------------------------
// Preferences

function applyPrefs() {
  const p = state.prefs;
  setLang(p.lang);
  speech.mode = p.speech;
  speech.verbosity = { ...p.verbosity };
  speech.voiceLang = p.lang === "ru" ? "ru-RU" : "en-US";
  sounds.enabled = p.sound;
  sounds.volume = p.volume / 100;
  document.documentElement.classList.toggle("high-contrast", p.contrast);
  document.documentElement.classList.toggle("large-text", p.large);
  applyStatic();
  $("signin-lang").value = p.lang;
  document.title = `trickroom · ${t(`${state.screen === "signin" ? "signin.title" : state.screen === "lobby" ? "lobby.title" : "table.felt"}`)}`;
  savePrefs(p);
}

function setLanguage(code) {
  state.prefs.lang = code;
  applyPrefs();
  if (state.user) net.send({ type: "preferences", lang: code });
  renderAll();
  speech.say(t("speech.lang_changed"), { channel: "system" });
}

function onPrefsChange(which) {
  if (which === "set-lang") {
    setLanguage(state.prefs.lang);
    openSettings({ onChange: onPrefsChange }); // relabel the open dialog in the new language
    return;
  }
  applyPrefs();
}

// ---------------------------------------------------------------------------------------------------------------
// Screens

function show(screen, { focus = false } = {}) {
  const changed = state.screen !== screen;
  state.screen = screen;
  for (const name of ["signin", "lobby", "table"]) $(`screen-${name}`).hidden = name !== screen;
  applyPrefs();
  if (focus || changed) {
    const target = screen === "signin" ? $("guest-nickname") : $(`${screen === "lobby" ? "lobby" : "table"}-title`);
    if (focus || !document.activeElement || document.activeElement === document.body ||
        document.activeElement.closest("[hidden]")) {
      target?.focus();
    }
  }
}

function renderAll() {
  renderLobby();
  if (state.table) renderTable(tableHandlers);
}

// ---------------------------------------------------------------------------------------------------------------
// Lobby

function renderLobby() {
  const container = $("tables");
  const tables = [...state.lobby.tables.values()];
  const focusedId = container.contains(document.activeElement) ? document.activeElement.id : null;
  container.replaceChildren();
  if (!tables.length) {
    const p = document.createElement("p");
    p.textContent = t("lobby.no_tables");
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
                          t(`status.${entry.status}`)]) {
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
      actions.append(join, watch);
      row.append(actions);
      body.append(row);
    }
    table.append(caption, head, body);
    container.append(table);
  }
  if (focusedId) $(focusedId)?.focus();
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
}

function addChat(listId, text) {
  const list = $(listId);
  const li = document.createElement("li");
  li.textContent = text;
  list.append(li);
  while (list.childElementCount > 200) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

// A table with a password asks for it first, unless this player was invited (or is already a member, as after a
// reload). A wrong password is said by the room and the question comes again, with the room's sentence in it.
function joinTable(id, sit, password) {
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

// ---------------------------------------------------------------------------------------------------------------
// Table actions

const tableHandlers = {
  start: () => hostOnly() && sendTable({ type: "start" }),
  addBot: () => hostOnly() && sendTable({ type: "bot_add", level: state.prefs.botLevel }),
  removeBot: () => {
    if (!hostOnly()) return;
    const seats = state.table.info.seats || [];
    const last = [...seats].reverse().find((s) => s.bot && !s.user);
    if (last) sendTable({ type: "bot_remove", seat: last.seat });
  },
  options: () => tableOptions(),
  people: () => state.table ? openPeople({ send: sendTable, say: (text) => speech.review(text) })
    : speech.say(t("speech.not_at_table"), { assertive: true, always: true }),
  bots: () => hostOnly() && openBots({ send: sendTable, onLevel: rememberBotLevel }),
  invite: () => hostOnly() && openInvite({ send: sendTable }),
  // One control: ask for a pause after this hand, call it off, or resume a paused game.
  pause: () => hostOnly() && sendTable({ type: "pause",
    paused: state.table.info.status === "playing" && !state.table.info.pause_requested }),
  spectator: () => spectatorToggle(),
  leave: () => state.table && sendTable({ type: "leave" }),
  act: (action) => sendAct(action),
};

// An act quotes the state it was chosen on (`move`) and is kept until the room answers it, so that after a
// reconnect it can be sent again without the risk of playing twice.
function sendAct(action) {
  const message = { type: "act", action, move: state.table?.move };
  if (!sendTable(message)) return;
  state.pendingAct = message;
}

function sendTable(message) {
  if (!state.table) {
    speech.say(t("speech.not_at_table"), { assertive: true, always: true });
    return false;
  }
  Object.assign(message, { table: state.table.id, id: newId() });
  if (!net.send(message)) {
    speech.say(t("speech.offline"), { assertive: true, always: true });
    return false;
  }
  return true;
}

function hostOnly() {
  if (!state.table) {
    speech.say(t("speech.not_at_table"), { assertive: true, always: true });
    return false;
  }
  if (!state.table.you?.host) {
    speech.say(t("speech.not_host"), { assertive: true, always: true });
    return false;
  }
  return true;
}

function firstFreeSeat(info) {
  return (info.seats || []).find((s) => !s.user && !s.bot)?.seat;
}

function spectatorToggle() {
  const table = state.table;
  if (!table) return;
  if (table.you?.seat !== null && table.you?.seat !== undefined) sendTable({ type: "stand" });
  else {
    const seat = firstFreeSeat(table.info);
    if (seat !== undefined) sendTable({ type: "sit", seat });
    else sendTable({ type: "sit", seat: 0 }); // the server explains why not
  }
}

function rememberBotLevel(level) {
  state.prefs.botLevel = level;
  savePrefs(state.prefs);
}

// The host gets the options dialog (the game's options while the table waits, its settings at any time); anyone
// else hears the options sentence.
function tableOptions() {
  const table = state.table;
  if (!table) return;
  if (table.you?.host && table.info.status !== "finished") {
    openTableDialog("edit", { onCreate: () => {}, onEdit: applyTableEdit, say: (text) => speech.review(text) });
  } else {
    speech.review(table.info.options_text);
  }
}

function applyTableEdit(result) {
  const info = state.table.info;
  rememberBotLevel(result.botLevel);
  const changed = {};
  for (const [name, value] of Object.entries(result.options)) if (info.options[name] !== value) changed[name] = value;
  if (Object.keys(changed).length) sendTable({ type: "options", options: changed });
  const settings = {};
  if (result.name && result.name !== info.name) settings.name = result.name;
  if (result.timer !== info.timer) settings.timer = result.timer;
  if (result.bot_delay !== info.bot_delay) settings.bot_delay = result.bot_delay;
  if (result.private !== info.private) settings.private = result.private;
  if (result.password) settings.password = result.password;
  else if (result.removePassword) settings.password = "";
  if (Object.keys(settings).length) sendTable({ type: "settings", ...settings });
}

function createTable(result) {
  rememberBotLevel(result.botLevel);
  const message = { type: "create", game: result.game, options: result.options, private: result.private,
                    timer: result.timer, bot_delay: result.bot_delay, id: newId() };
  if (result.name) message.name = result.name;
  if (result.password) message.password = result.password;
  state.pendingCreate = { id: message.id, sit: result.sit };
  net.send(message);
}

function playCards(cards) {
  sendAct(`play ${cards.join(" ")}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Messages from the room

// A plain drop says "Connection lost. Reconnecting." and, once back, "Reconnected."; a move to another node
// (the room's "reconnect", or a restart) is no error: "Moving to another server…", then "Back at the table." when
// the table's snapshot has come (the missed messages are spoken before it).
function onStatus(status, { wasOpen, moved }) {
  const conn = $("conn-status");
  if (status === "open") {
    conn.textContent = t("conn.online");
    conn.classList.remove("offline");
    state.reconnecting = wasOpen;
    state.moving = Boolean(wasOpen && moved);
    return;
  }
  conn.textContent = t("conn.offline");
  conn.classList.add("offline");
  if (status === "lost") speech.say(t("speech.lost"), { channel: "system", assertive: true, always: true });
  if (status === "moving") speech.say(t("speech.moving"), { channel: "system", assertive: true, always: true });
}

function login(fields) {
  net.send({ type: "login", protocol: 1, lang: lang(), id: newId(), ...fields });
}

function onMessage(m) {
  // A journal message seen already (a resume overlapping what arrived live) is dropped, never spoken twice.
  if (m.table && typeof m.seq === "number" && ["event", "table_event", "chat"].includes(m.type)) {
    if (m.seq <= (state.lastSeq[m.table] || 0)) return;
    state.lastSeq[m.table] = m.seq;
  }
  const handler = HANDLERS[m.type];
  if (handler) handler(m);
}

function quiet(m) {
  return Boolean(m.missed && m.table && state.quietResume.has(m.table));
}

function sayFrom(m, options) {
  if (quiet(m)) {
    speech.say(m.text, { ...options, essential: false, record: true, channel: options.channel });
    return;
  }
  speech.say(m.text, options);
}

const HANDLERS = {
  hello(m) {
    state.hello = m;
    net.setNodes(m.nodes);
    if (state.token) login({ token: state.token });
    else show("signin");
  },
  welcome(m) {
    state.user = m.user;
    state.token = m.token;
    saveToken(m.token);
    if (m.preferences?.lang !== lang()) net.send({ type: "preferences", lang: lang() });
    const tables = new Set(m.tables || []);
    if (state.table) tables.add(state.table.id);
    if (state.moving) {
      // Said when each table's snapshot arrives; with no table, at once.
      for (const id of tables) state.movedTables.add(id);
      if (!tables.size) speech.say(t("speech.moved_lobby"), { channel: "system", assertive: true, always: true });
    } else if (state.reconnecting) {
      speech.say(t("speech.reconnected"), { channel: "system", assertive: true, always: true });
    } else speech.say(m.text, { channel: "system" });
    for (const id of tables) {
      if (!state.reconnecting && !(id in state.lastSeq)) state.quietResume.add(id);
      const request = newId();
      state.pendingResumes.set(request, id);
      net.send({ type: "resume", table: id, after: state.lastSeq[id] || 0, id: request });
    }
    if (!state.table) show("lobby", { focus: !state.reconnecting });
    state.reconnecting = false;
    state.moving = false;
  },
  // This node is stopping: the close that follows moves to another one (net.js); nothing to say yet.
  reconnect(m) {
    net.moveAway(m.nodes);
  },
  lobby(m) {
    state.lobby.users = m.users || [];
    state.lobby.tables = new Map((m.tables || []).map((e) => [e.id, e]));
    renderLobby();
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
  chat(m) {
    addChat(m.table ? "table-chat-log" : "lobby-chat-log", m.text);
    if (!quiet(m)) sounds.play("chat");
    sayFrom(m, { channel: "chat", essential: Boolean(m.table) });
  },
  private(m) {
    addChat("lobby-chat-log", m.text);
    sounds.play("chat");
    speech.say(m.text, { channel: "chat" });
  },
  invited(m) {
    state.invitedTables.add(m.table);
    if (m.entry) state.lobby.tables.set(m.entry.id, m.entry);
    renderLobby();
    sounds.play("join");
    speech.say(m.text, { channel: "system" });
  },
  preferences() {},
  snapshot(m) {
    for (const [request, table] of state.pendingResumes) if (table === m.table) state.pendingResumes.delete(request);
    const arriving = !state.table || state.table.id !== m.table;
    state.table = { id: m.table, info: m.info, you: m.you, view: m.view, legal: m.legal || [], to_act: m.to_act || [],
                    deadline: m.deadline, deadlineAt: deadlineAt(m.deadline), standings: m.standings, move: m.move };
    // After a reconnect: the act that went unanswered goes again (the room ignores it if it was applied).
    if (state.pendingAct?.table === m.table) net.send(state.pendingAct);
    if (state.pendingJoin?.table === m.table) state.pendingJoin = null;
    state.lastSeq[m.table] = Math.max(state.lastSeq[m.table] || 0, m.seq || 0);
    state.turnSaid = null;
    if (state.movedTables.delete(m.table)) {
      speech.say(t("speech.moved_back"), { channel: "system", assertive: true, always: true });
    }
    if (state.quietResume.has(m.table)) {
      state.quietResume.delete(m.table);
      speech.say(t("speech.back_at_table", { name: m.info.name }), { channel: "system" });
    }
    if (state.pendingCreate && m.re === state.pendingCreate.id) {
      if (state.pendingCreate.sit) state.pendingSit = m.table;
      state.pendingCreate = null;
    }
    if (state.pendingSit === m.table) {
      state.pendingSit = null;
      if (m.you.seat === null || m.you.seat === undefined) {
        const seat = firstFreeSeat(m.info);
        if (seat !== undefined) sendTable({ type: "sit", seat });
      }
    }
    renderTable(tableHandlers);
    show("table", { focus: arriving && m.re !== undefined });
  },
  event(m) {
    if (!state.table || state.table.id !== m.table) return;
    const kind = m.event?.type;
    if (!quiet(m)) {
      const sound = kind === "announced" ? (m.event.announcements?.length ? "combo" : null) : EVENT_SOUNDS[kind];
      if (sound) sounds.play(sound);
    }
    sayFrom(m, { channel: "game", essential: ESSENTIAL_EVENTS.has(kind) });
  },
  update(m) {
    if (!state.table || state.table.id !== m.table) return;
    Object.assign(state.table, { view: m.view, legal: m.legal || [], to_act: m.to_act || [], deadline: m.deadline,
                                 deadlineAt: deadlineAt(m.deadline), move: m.move });
    // The "started" table event carries the info from just before the start (status still "waiting"); an update
    // with a view means the match is on.
    if (m.view && state.table.info.status === "waiting") state.table.info = { ...state.table.info, status: "playing" };
    if (!(m.to_act || []).includes(state.table.you?.seat)) state.turnSaid = null;
    renderTable(tableHandlers);
  },
  your_turn(m) {
    if (!state.table || state.table.id !== m.table) return;
    state.table.legal = m.legal || state.table.legal;
    if (m.deadline !== undefined) state.table.deadlineAt = deadlineAt(m.deadline);
    // The room repeats your_turn when another seat answers while this one still waits (Bura's announcement
    // pause); the same turn with the same choices is said once.
    const signature = (m.legal || []).join("|");
    if (state.turnSaid !== signature) {
      state.turnSaid = signature;
      sounds.play("turn");
      speech.say(m.text, { channel: "game", assertive: true });
      if (typeof m.deadline === "number") {
        speech.say(t("speech.deadline", { n: Math.round(m.deadline) }), { channel: "game", assertive: true });
      }
    }
    renderTable(tableHandlers);
  },
  // The warning comes to the player whose turn it is; it is urgent while the turn is still theirs.
  timer(m) {
    if (m.table && state.table?.id === m.table) {
      state.table.deadlineAt = deadlineAt(m.seconds_left);
      renderTable(tableHandlers);
    }
    const mine = state.table && (state.table.to_act || []).includes(state.table.you?.seat);
    sounds.play("timer");
    speech.say(m.text, { channel: "game", assertive: Boolean(mine), always: true });
  },
  table_event(m) {
    if (!state.table || state.table.id !== m.table) return;
    state.table.info = m.info;
    const seat = state.table.info.seats?.find((s) => s.user && s.user.id === state.user?.id);
    state.table.you = { seat: seat ? seat.seat : null, host: m.info.host?.id === state.user?.id };
    if (m.kind === "finished") state.table.standings = m.standings;
    if (!quiet(m)) {
      if (JOIN_KINDS.has(m.kind)) sounds.play("join");
      else if (LEAVE_KINDS.has(m.kind)) sounds.play("leave");
    }
    sayFrom(m, { channel: "system", essential: ESSENTIAL_TABLE_EVENTS.has(m.kind) });
    renderTable(tableHandlers);
  },
  left(m) {
    if (state.table && state.table.id === m.table) {
      state.table = null;
      show("lobby", { focus: true });
    }
    speech.say(m.text, { channel: "system" });
    net.send({ type: "lobby" });
  },
  error(m) {
    if (state.pendingAct && m.re === state.pendingAct.id) state.pendingAct = null;
    sounds.play("error");
    speech.say(m.text, { channel: "system", assertive: true, always: true });
    // A table we were at refused us on coming back (closed meanwhile, made private, a ban): its screen is stale.
    const refused = state.pendingResumes.get(m.re);
    state.pendingResumes.delete(m.re);
    if (refused && state.table?.id === refused) {
      state.table = null;
      show("lobby", { focus: true });
      net.send({ type: "lobby" });
    }
    const join = state.pendingJoin;
    if (join && m.re === join.id) {
      state.pendingJoin = null;
      if (m.code === "wrong_password") {
        askPassword({ name: join.name, error: m.text, onSubmit: (typed) => joinTable(join.table, join.sit, typed) });
      }
    }
    if (m.code === "bad_token") {
      state.token = null;
      saveToken(null);
      show("signin", { focus: true });
    }
  },
  stats(m) {
    onStats(m, { say: sayStats });
  },
  ok(m) {
    if (state.pendingAct && m.re === state.pendingAct.id) state.pendingAct = null;
  },
  pong() {},
};

function sayStats(text) {
  speech.say(text, { channel: "system", always: true });
}

function openStats() {
  requestStats({ send: (message) => net.send(message), say: sayStats, newId });
}

// ---------------------------------------------------------------------------------------------------------------
// Keys and the menu

function isTextField(el) {
  if (!el) return false;
  if (el.isContentEditable) return true;
  const tag = el.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  return !["checkbox", "radio", "button", "submit", "reset", "range"].includes(el.type);
}

function info(fn) {
  return () => {
    if (!state.table) return speech.review(t("speech.not_at_table"));
    speech.review(fn(state.table));
  };
}

function focusChat() {
  const input = state.screen === "table" ? $("table-chat-input") : $("lobby-chat-input");
  input?.focus();
}

function focusActions() {
  const actions = $("actions");
  (actions.querySelector("button") || actions).focus();
}

function commands() {
  const general = [
    { key: "F1", label: t("key.help"), run: openHelp },
    { key: "F2", label: t("key.settings"), run: () => openSettings({ onChange: onPrefsChange }) },
    { key: "L", label: t("key.repeat"), run: () => speech.repeatLast(t("speech.nothing")) },
    { key: "PageUp", label: t("key.history_back"), run: () => speech.back(t("speech.history_start")) },
    { key: "PageDown", label: t("key.history_forward"), run: () => speech.forward(t("speech.history_end")) },
    { key: "M", label: t("key.mute"), run: toggleMute },
  ];
  if (state.screen === "lobby") {
    return [
      { key: "N", label: t("key.new_table"), run: () => openTableDialog("create", { onCreate: createTable, say: (text) => speech.review(text) }) },
      { key: "E", label: t("key.chat"), run: focusChat },
      { key: "U", label: t("key.online"), run: () => speech.review(t("online.list", {
        names: state.lobby.users.map((u) => u.name).join(", ") })) },
      { key: "S", label: t("key.stats"), run: openStats },
      { key: "F5", label: t("key.refresh"), run: () => net.send({ type: "lobby" }), menuOnly: true },
      ...general,
      { key: "", label: t("key.logout"), run: logout },
    ];
  }
  if (state.screen === "table") {
    return [
      { key: "K", label: t("key.focus_hand"), run: () => getHand().focus() },
      { key: "A", label: t("key.focus_actions"), run: focusActions },
      { key: "E", label: t("key.chat"), run: focusChat },
      { key: "S", label: t("key.scores"), run: info(scoresText) },
      { key: "T", label: t("key.turn"), run: info(turnText) },
      { key: "C", label: t("key.trick"), run: info(trickText) },
      { key: "H", label: t("key.hand"), run: info(handText) },
      { key: "P", label: t("key.pot"), run: info(potText) },
      { key: "R", label: t("key.stock"), run: info(stockText) },
      { key: "I", label: t("key.time"), run: info(timeText) },
      { key: "W", label: t("key.people"), run: tableHandlers.people },
      { key: "Alt+O", label: state.table?.info?.status === "waiting" || !state.table?.you?.host ? t("key.options")
        : t("key.settings_table"), run: tableOptions },
      { key: "B", label: t("key.add_bot"), run: tableHandlers.addBot },
      { key: "Shift+B", label: t("key.remove_bot"), run: tableHandlers.removeBot },
      { key: "Alt+B", label: t("key.bots"), run: tableHandlers.bots },
      { key: "V", label: t("key.invite"), run: tableHandlers.invite },
      { key: "G", label: t("key.start"), run: tableHandlers.start },
      { key: "F3", label: t("key.spectator"), run: spectatorToggle },
      ...general,
      { key: "", label: pauseLabel(state.table?.info), run: tableHandlers.pause },
      { key: "", label: t("key.leave"), run: tableHandlers.leave },
    ];
  }
  return general.filter((c) => ["F1", "F2", "L", "PageUp", "PageDown", "M"].includes(c.key));
}

function deadlineAt(seconds) {
  return typeof seconds === "number" ? Date.now() + seconds * 1000 : null;
}

// The visible countdown (not a live region: the time is spoken by the I key and the room's warning).
function tickCountdown() {
  const el = document.getElementById("time-left");
  const seconds = state.table ? secondsLeft(state.table) : null;
  if (el && seconds !== null) el.textContent = t("table.seconds", { n: seconds });
}

function toggleMute() {
  state.prefs.sound = !state.prefs.sound;
  applyPrefs();
  speech.review(t(state.prefs.sound ? "speech.unmuted" : "speech.muted"));
}

function logout() {
  net.send({ type: "logout" });
  state.user = null;
  state.table = null;
  state.token = null;
  saveToken(null);
  show("signin", { focus: true });
}

function keyName(event) {
  let name = event.key.length === 1 ? event.key.toUpperCase() : event.key;
  if (event.shiftKey && (event.key.length === 1 || name.startsWith("F"))) name = `Shift+${name}`;
  if (event.altKey) name = `Alt+${event.code.startsWith("Key") ? event.code.slice(3) : name}`;
  return name;
}

function openHelp() {
  const body = $("help-body");
  body.replaceChildren();
  const intro = document.createElement("p");
  intro.textContent = t(`help.screen_${state.screen}`);
  body.append(intro);
  if (state.screen === "table") {
    const hand = document.createElement("p");
    hand.textContent = t("help.hand_keys");
    body.append(hand);
  }
  const list = document.createElement("ul");
  for (const command of commands()) {
    if (!command.key || command.menuOnly) continue;
    const li = document.createElement("li");
    const kbd = document.createElement("kbd");
    kbd.textContent = command.key;
    li.append(kbd, document.createTextNode(`: ${command.label}`));
    list.append(li);
  }
  body.append(list);
  for (const key of ["help.general_keys", "help.screen_reader"]) {
    const paragraph = document.createElement("p");
    paragraph.textContent = t(key);
    body.append(paragraph);
  }
  openDialog($("help-dialog"), { focus: $("help-title") });
}

function openMenu() {
  const menu = $("menu");
  const button = $("menu-button");
  menu.returnTo = document.activeElement !== button ? document.activeElement : button;
  menu.replaceChildren();
  for (const command of commands()) {
    const li = document.createElement("li");
    li.setAttribute("role", "menuitem");
    li.tabIndex = -1;
    li.textContent = command.key ? `${command.label} (${command.key})` : command.label;
    if (command.key) li.setAttribute("aria-keyshortcuts", command.key);
    li.addEventListener("click", () => {
      closeMenu(false);
      command.run();
    });
    menu.append(li);
  }
  menu.hidden = false;
  button.setAttribute("aria-expanded", "true");
  menu.firstElementChild?.focus();
}

function closeMenu(returnFocus = true) {
  const menu = $("menu");
  if (menu.hidden) return;
  menu.hidden = true;
  $("menu-button").setAttribute("aria-expanded", "false");
  const target = menu.returnTo;
  if (target && target.isConnected && target.offsetParent !== null) target.focus();
  else if (returnFocus) $("menu-button").focus();
}

function onMenuKey(event) {
  const items = [...$("menu").children];
  const index = items.indexOf(document.activeElement);
  const go = (i) => items[(i + items.length) % items.length]?.focus();
  if (event.key === "ArrowDown") go(index + 1);
  else if (event.key === "ArrowUp") go(index - 1);
  else if (event.key === "Home") go(0);
  else if (event.key === "End") go(items.length - 1);
  else if (event.key === "Enter" || event.key === " ") items[index]?.click();
  else if (event.key === "Escape" || event.key === "Tab") closeMenu();
  else if (event.key.length === 1) {
    const letter = event.key.toLowerCase();
    const next = items.findIndex((item, i) => i > index && item.textContent.toLowerCase().startsWith(letter));
    const found = next >= 0 ? next : items.findIndex((item) => item.textContent.toLowerCase().startsWith(letter));
    if (found >= 0) go(found);
  } else return;
  event.preventDefault();
  event.stopPropagation();
}

function onKeyDown(event) {
  sounds.unlock();
  if (!$("menu").hidden && $("menu").contains(event.target)) return; // the menu's own handler
  if (anyDialogOpen()) return;
  const name = keyName(event);
  const typing = isTextField(event.target);
  if (name === "ContextMenu" || name === "Shift+F10") {
    event.preventDefault();
    openMenu();
    return;
  }
  if (typing && event.key === "Escape") {
    event.target.blur();
    if (state.screen === "table") getHand().focus();
    else $(`${state.screen === "lobby" ? "lobby" : "signin"}-title`).focus();
    event.preventDefault();
    return;
  }
  const singleLetter = event.key.length === 1 && !event.ctrlKey && !event.altKey && !event.metaKey;
  if (singleLetter && typing) return; // letters type into the field
  if (event.ctrlKey || event.metaKey) return;
  if ((name === "PageUp" || name === "PageDown") && event.target.tagName === "TEXTAREA") return;
  const command = commands().find((c) => c.key && c.key === name && !c.menuOnly);
  if (!command) return;
  event.preventDefault();
  command.run();
}

// ---------------------------------------------------------------------------------------------------------------
// Wiring

function wire() {
  $("guest-form").addEventListener("submit", (event) => {
    event.preventDefault();
    login({ nickname: $("guest-nickname").value.trim() });
  });
  $("account-form").addEventListener("submit", (event) => {
    event.preventDefault();
    login({ username: $("account-username").value.trim(), password: $("account-password").value });
  });
  $("register-button").addEventListener("click", () => {
    net.send({ type: "register", protocol: 1, lang: lang(), username: $("account-username").value.trim(),
               password: $("account-password").value, id: newId() });
  });
  $("signin-lang").addEventListener("change", (event) => setLanguage(event.target.value));
  $("create-button").addEventListener("click", () => openTableDialog("create", { onCreate: createTable, say: (text) => speech.review(text) }));
  $("refresh-button").addEventListener("click", () => net.send({ type: "lobby" }));
  $("stats-button").addEventListener("click", openStats);
  $("logout-button").addEventListener("click", logout);
  $("settings-button").addEventListener("click", () => openSettings({ onChange: onPrefsChange }));
  $("help-button").addEventListener("click", openHelp);
  $("menu-button").addEventListener("click", () => ($("menu").hidden ? openMenu() : closeMenu()));
  $("menu").addEventListener("keydown", onMenuKey);
  $("lobby-chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = $("lobby-chat-input").value.trim();
    if (message && net.send({ type: "chat", message, id: newId() })) $("lobby-chat-input").value = "";
  });
  $("private-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = $("private-input").value.trim();
    const to = $("private-to").value;
    if (message && to && net.send({ type: "private", to, message, id: newId() })) $("private-input").value = "";
  });
  $("table-chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = $("table-chat-input").value.trim();
    if (message && sendTable({ type: "chat", message })) $("table-chat-input").value = "";
  });
  document.addEventListener("keydown", onKeyDown);
  document.addEventListener("pointerdown", () => sounds.unlock());
  document.addEventListener("contextmenu", (event) => {
    if (event.target.closest?.("input, textarea")) return;
    event.preventDefault();
    if ($("menu").hidden) openMenu();
  });
  document.addEventListener("click", (event) => {
    if (!$("menu").hidden && !event.target.closest("#menu, #menu-button")) closeMenu(false);
  });
}

function start() {
  applyPrefs();
  initTableView({ onPlayCards: playCards });
  wire();
  show("signin");
  $("conn-status").textContent = t("speech.connecting");
  net.connect();
  // For tests and debugging: the state and a way to drop the connection as a network failure would.
  window.trickroom = { state, speech, net, sounds };
  setInterval(tickCountdown, 1000);
}

start();
