// F4: the moderation dialog (docs/moderation.md). For everyone: report a player, ignore one (and hear them again),
// change one's password and delete one's account. For a moderator, also: the reports that wait, the moderators'
// channel, mute and lift a mute, remove from the room, ban from the room, every table (watch it, close it, read
// its chat); for an admin: an announcement, the message of the day and the audit log.
//
// Keyboard only, as the host's dialogs: one dialog whose body is either a list of buttons (Tab or arrows, Enter)
// or a short form (labelled fields, Enter sends). What happens is spoken from the room's own reply, never guessed.

import { closeDialog, openDialog } from "./dialog.js";
import { t } from "./i18n.js";
import { peopleCounted, saveToken, state } from "./state.js";

const $ = (id) => document.getElementById(id);
const DURATIONS = [10, 60, 60 * 24, 60 * 24 * 7, null]; // minutes; null: for good (a ban) or until lifted (a mute)
let env = null; // { send, say, newId }
const pending = new Set(); // ids of this dialog's requests: their replies (ok with a text, errors) are spoken
// The roles the room told this user of at sign-in; welcomeSaid: whom, and what, the moderator's welcome last said.
const mod = { user: null, roles: [], reports: [], welcomeSaid: null };

export function initModeration(options) {
  env = options;
  $("moderation-form").addEventListener("submit", (event) => {
    event.preventDefault();
    closeDialog($("moderation-dialog"));
  });
  $("moderation-dialog").addEventListener("keydown", onArrows);
}

function roles() {
  return mod.user && mod.user === state.user?.id ? mod.roles : [];
}

function isModerator() {
  return roles().includes("moderator") || roles().includes("admin");
}

function send(message) {
  const id = env.newId();
  pending.add(id);
  env.send({ ...message, id });
  return id;
}

function say(text) {
  env.say(text);
}

// Up and Down move between the buttons of a list, as in the host's dialogs.
function onArrows(event) {
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
  const items = [...$("moderation-body").querySelectorAll("button, [tabindex='0']")];
  const index = items.indexOf(document.activeElement);
  if (index < 0) return;
  event.preventDefault();
  items[(index + (event.key === "ArrowDown" ? 1 : -1) + items.length) % items.length].focus();
}

// A button of the dialog: the dialog closes, then its action runs (a form opens the dialog again).
function button(text, run) {
  const el = document.createElement("button");
  el.type = "button";
  el.textContent = text;
  el.addEventListener("click", () => {
    closeDialog($("moderation-dialog"));
    run();
  });
  return el;
}

function show(title, description, children) {
  $("moderation-title").textContent = title;
  $("moderation-desc").textContent = description;
  $("moderation-body").replaceChildren(...children);
  const dialog = $("moderation-dialog");
  openDialog(dialog, { focus: $("moderation-body").querySelector("button, input, select, [tabindex='0']") });
}

function list(items) {
  const ul = document.createElement("ul");
  ul.className = "plain-list";
  for (const item of items) {
    const li = document.createElement("li");
    li.append(...(Array.isArray(item) ? item : [item]));
    ul.append(li);
  }
  return ul;
}

function line(text) {
  const p = document.createElement("p");
  p.textContent = text;
  p.tabIndex = 0;
  return p;
}

// A short form: each field labelled; Enter or the send button sends, and the dialog closes.
let fieldCount = 0;
function field(kind, label, options = {}) {
  fieldCount += 1;
  const id = `moderation-field-${fieldCount}`;
  const wrap = document.createElement("div");
  wrap.className = "field";
  const el = document.createElement(kind === "select" ? "select" : "input");
  el.id = id;
  el.name = options.name || id;
  if (kind !== "select") {
    el.type = kind;
    if (options.maxLength) el.maxLength = options.maxLength;
    if (kind === "password") el.autocomplete = options.autocomplete || "current-password";
  }
  for (const [value, text] of options.choices || []) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = text;
    el.append(option);
  }
  if (options.required) el.required = true;
  const labelEl = document.createElement("label");
  labelEl.htmlFor = id;
  labelEl.textContent = label;
  wrap.append(labelEl, el);
  return { wrap, el };
}

function form(title, fields, submitLabel, onSubmit) {
  const el = document.createElement("div");
  el.append(...fields.map((f) => f.wrap));
  const submit = document.createElement("button");
  submit.type = "button";
  submit.textContent = submitLabel;
  submit.addEventListener("click", () => {
    const missing = fields.find((f) => f.el.required && !f.el.value.trim());
    if (missing) {
      missing.el.focus();
      say(t("moderation.required"));
      return;
    }
    closeDialog($("moderation-dialog"));
    onSubmit();
  });
  el.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target.tagName === "INPUT") {
      event.preventDefault();
      submit.click();
    }
  });
  el.append(submit);
  show(title, "", [el]);
}

function people() {
  const others = (state.lobby.users || []).filter((u) => u.id !== state.user?.id);
  return others.map((u) => [u.name, u.name]);
}

// The person: chosen among those online, or in a busy room (which counts its people instead of listing them) their
// name typed; the room takes either.
function personField() {
  if (peopleCounted()) return field("text", t("moderation.person"), { maxLength: 40, required: true });
  return field("select", t("moderation.person"), { choices: people(), required: true });
}

function durationField(forGood) {
  const choices = DURATIONS.map((m) => [m === null ? "" : String(m), m === null ? t(forGood)
    : t(`moderation.minutes.${m}`)]);
  return field("select", t("moderation.duration"), { choices });
}

function reasonField(required = false) {
  return field("text", t("moderation.reason"), { maxLength: 500, required });
}

function minutesOf(select) {
  return select.value === "" ? undefined : Number(select.value);
}

// The dialog's first screen: what this person may do.
export function openModeration() {
  if (!state.user) return;
  const items = [
    button(t("moderation.report"), openReport),
    button(t("moderation.ignore"), () => openIgnore(true)),
  ];
  items.push(button(t("moderation.unignore"), () => openIgnore(false)));
  if (isModerator()) {
    items.push(
      button(t("moderation.reports"), () => send({ type: "reports" })),
      button(t("moderation.channel"), openChannel),
      button(t("moderation.mute"), openMute),
      button(t("moderation.unmute"), () => personForm(t("moderation.unmute"), "unmute")),
      button(t("moderation.remove"), () => personForm(t("moderation.remove"), "remove", true)),
      button(t("moderation.ban"), openBan),
      button(t("moderation.tables"), () => send({ type: "all_tables" })),
    );
  }
  if (roles().includes("admin")) {
    items.push(
      button(t("moderation.announce"), () => textForm(t("moderation.announce"), "announce")),
      button(t("moderation.motd"), () => textForm(t("moderation.motd"), "motd", false)),
      button(t("moderation.audit"), () => send({ type: "audit" })),
    );
  }
  if (!state.user.guest) {
    items.push(button(t("moderation.password"), openPassword), button(t("moderation.delete"), openDelete));
  }
  show(t(isModerator() ? "moderation.title_moderator" : "moderation.title"), "", [list(items)]);
}

function openReport() {
  const person = personField();
  const reason = reasonField(true);
  form(t("moderation.report"), [person, reason], t("moderation.send"), () => {
    send({ type: "report", user: person.el.value.trim(), reason: reason.el.value.trim(),
           ...(state.table ? { table: state.table.id } : {}) });
  });
}

function openIgnore(on) {
  const person = personField();
  form(t(on ? "moderation.ignore" : "moderation.unignore"), [person], t("moderation.send"), () => {
    send({ type: "ignore", user: person.el.value.trim(), ignore: on });
  });
}

function personForm(title, type, withReason = false) {
  const person = personField();
  const fields = [person];
  const reason = withReason ? reasonField() : null;
  if (reason) fields.push(reason);
  form(title, fields, t("moderation.send"), () => {
    const why = reason ? reason.el.value.trim() : "";
    send({ type, user: person.el.value.trim(), ...(why ? { reason: why } : {}) });
  });
}

function openMute() {
  const person = personField();
  const duration = durationField("moderation.until_lifted");
  const reason = reasonField();
  form(t("moderation.mute"), [person, duration, reason], t("moderation.send"), () => {
    send({ type: "mute", user: person.el.value.trim(), minutes: minutesOf(duration.el),
           ...(reason.el.value.trim() ? { reason: reason.el.value.trim() } : {}) });
  });
}

function openBan() {
  const person = personField();
  const duration = durationField("moderation.for_good");
  const reason = reasonField();
  form(t("moderation.ban"), [person, duration, reason], t("moderation.send"), () => {
    send({ type: "room_ban", user: person.el.value.trim(), minutes: minutesOf(duration.el),
           ...(reason.el.value.trim() ? { reason: reason.el.value.trim() } : {}) });
  });
}

function textForm(title, type, required = true) {
  const message = field("text", t("moderation.message"), { maxLength: 500, required });
  form(title, [message], t("moderation.send"), () => send({ type, message: message.el.value.trim() }));
}

function openChannel() {
  textForm(t("moderation.channel"), "moderators");
}

function openPassword() {
  const old = field("password", t("moderation.old_password"), { required: true });
  const fresh = field("password", t("moderation.new_password"), { required: true, autocomplete: "new-password" });
  form(t("moderation.password"), [old, fresh], t("moderation.send"), () => {
    send({ type: "change_password", old: old.el.value, new: fresh.el.value });
  });
}

function openDelete() {
  const password = field("password", t("moderation.delete_password"), { required: true });
  form(t("moderation.delete"), [password], t("moderation.delete_confirm"), () => {
    send({ type: "delete_account", password: password.el.value });
  });
}

function tableForm(table, type) {
  const reason = reasonField(true);
  form(t("moderation.close_table", { name: table.title || table.id }), [reason], t("moderation.send"), () => {
    send({ type, table: table.id, reason: reason.el.value.trim() });
  });
}

// The room's replies

function showReports(reports) {
  mod.reports = reports;
  if (!reports.length) {
    say(t("moderation.no_reports"));
    return;
  }
  const items = reports.map((r) => {
    const parts = [line(r.text), button(t("moderation.handled"), () => send({ type: "handle_report", report: r.id }))];
    if (r.table) {
      parts.push(button(t("moderation.read_chat", { table: r.table }), () => send({ type: "table_chat", table: r.table })));
      parts.push(button(t("moderation.watch", { name: r.table }), () => send({ type: "moderator_watch", table: r.table })));
    }
    return parts;
  });
  show(t("moderation.reports"), t("moderation.reports_count", { count: reports.length }), [list(items)]);
}

export const moderationHandlers = {
  // Sent after every login, as the message of the day: said again only when it says something new.
  moderator(m) {
    mod.user = state.user?.id || null;
    mod.roles = m.roles || [];
    mod.reports = m.reports || [];
    const said = `${mod.user}|${m.text}`;
    if (mod.welcomeSaid === said) return;
    mod.welcomeSaid = said;
    say(m.text);
  },
  report(m) {
    mod.reports.push(m.report);
    say(m.text);
  },
  reports(m) {
    pending.delete(m.re);
    showReports(m.reports || []);
  },
  reported(m) {
    pending.delete(m.re);
    say(m.text);
  },
  ignored(m) {
    pending.delete(m.re);
    say(m.text);
  },
  moderators(m) {
    say(m.text);
  },
  announcement(m) {
    say(m.text);
  },
  // Sent after every login: said once per page while it stays the same (a reconnection or a move to our table's
  // node does not repeat it).
  motd(m) {
    if (state.motdSaid === m.message) return;
    state.motdSaid = m.message;
    say(m.text);
  },
  muted(m) {
    say(m.text);
  },
  all_tables(m) {
    pending.delete(m.re);
    const tables = m.tables || [];
    if (!tables.length) return say(t("moderation.no_tables"));
    const items = tables.map((table) => [
      line(`${table.title}, ${table.options_text || ""}`),
      button(t("moderation.watch", { name: table.title }), () => send({ type: "moderator_watch", table: table.id })),
      button(t("moderation.close", { name: table.title }), () => tableForm(table, "close_table")),
      button(t("moderation.read_chat", { table: table.title }), () => send({ type: "table_chat", table: table.id })),
    ]);
    show(t("moderation.tables"), "", [list(items)]);
  },
  table_chat(m) {
    pending.delete(m.re);
    const lines = (m.chat || []).map((c) => line(`${c.from.name}: ${c.message}`));
    show(t("moderation.chat_of", { table: m.table }), lines.length ? "" : t("moderation.no_chat"),
      lines.length ? [list(lines)] : []);
    if (!lines.length) say(t("moderation.no_chat"));
  },
  audit(m) {
    pending.delete(m.re);
    const lines = (m.entries || []).map((e) => line(`${e.at.slice(0, 16).replace("T", " ")} ${e.text}`));
    show(t("moderation.audit"), "", [list(lines)]);
  },
  password_changed(m) {
    pending.delete(m.re);
    state.token = m.token;
    saveToken(m.token);
    say(m.text);
  },
  account_deleted(m) {
    pending.delete(m.re);
    state.token = null;
    saveToken(null);
    say(m.text);
  },
};

// app.js passes on every "ok" and "error": the replies to this dialog's requests are spoken here (errors are
// spoken by app.js itself); a removal or a ban forgets the token, so that the client does not sign in again.
export function onModerationReply(m) {
  if (m.type === "error" && (m.code === "removed" || m.code === "room_banned") && m.re === undefined) {
    state.token = null;
    saveToken(null);
  }
  if (!pending.has(m.re)) return;
  pending.delete(m.re);
  if (m.type === "ok" && m.text) say(m.text);
}
