// The host's dialogs and the password asked when joining. Each dialog is a plain list of buttons whose names say
// exactly what they do ("Remove Boris", "Remove Bot 3"), so a screen reader user can Tab or arrow through them and
// press Enter; the dialog closes after one action and focus goes back where it was. What happens is then spoken
// from the room's own table event ("Boris is removed from the table."), never guessed by the client.
//
// - People (W): everyone at the table, seated or watching; for the host, per person: make host, remove, ban
//   (ban asks for a second press, since the host cannot undo it).
// - Bots (Alt+B): the level of the bot to add (remembered: B adds that level afterwards), and one Remove button
//   per bot seat.
// - Invite (V): the people online who are not at the table; in a busy room (which counts its people instead of
//   listing them) a name typed in a field.

import { closeDialog, openDialog } from "./dialog.js";
import { levelName, t } from "./i18n.js";
import { peopleCounted, state } from "./state.js";

const $ = (id) => document.getElementById(id);

function button(text, onClick, id) {
  const el = document.createElement("button");
  el.type = "button";
  el.textContent = text;
  if (id) el.id = id;
  el.addEventListener("click", onClick);
  return el;
}

function paragraph(text, className) {
  const p = document.createElement("p");
  p.textContent = text;
  if (className) p.className = className;
  return p;
}

function openList(title, description, children) {
  const dialog = $("list-dialog");
  $("list-dialog-title").textContent = title;
  $("list-dialog-desc").textContent = description;
  $("list-dialog-body").replaceChildren(...children);
  if (!dialog.wired) {
    $("list-form").addEventListener("submit", (event) => {
      event.preventDefault();
      closeDialog(dialog);
    });
    dialog.wired = true;
  }
  const first = $("list-dialog-body").querySelector("button, select, input");
  openDialog(dialog, { focus: first || dialog.querySelector("button[type=submit]") });
}

function done(run) {
  return () => {
    closeDialog($("list-dialog"));
    run();
  };
}

// Everyone at the table who is a person: seated (also while a bot plays for them) or watching.
export function tablePeople(info) {
  const people = [];
  for (const seat of info.seats || []) {
    if (seat.user) people.push({ user: seat.user, where: t("people.seated", { n: seat.seat + 1 }) });
  }
  for (const user of info.spectators || []) {
    if (!people.some((p) => p.user.id === user.id)) people.push({ user, where: t("people.watching") });
  }
  return people;
}

export function openPeople({ send, say }) {
  const table = state.table;
  const host = Boolean(table.you?.host);
  const list = document.createElement("ul");
  list.className = "plain-list people-list";
  const people = tablePeople(table.info);
  people.forEach(({ user, where }, index) => {
    const li = document.createElement("li");
    const parts = [user.id === state.user?.id ? `${user.name} ${t("you_suffix")}` : user.name, where];
    if (user.id === table.info.host?.id) parts.push(t("table.host"));
    li.append(paragraph(parts.join(", "), "person"));
    if (host && user.id !== state.user?.id) {
      const row = document.createElement("div");
      row.className = "button-row";
      const name = user.name;
      row.append(button(t("people.make_host", { name }), done(() => send({ type: "host", user: user.id })),
                        `person-host-${index}`));
      row.append(button(t("people.kick", { name }), done(() => send({ type: "kick", user: user.id })),
                        `person-kick-${index}`));
      const ban = button(t("people.ban", { name }), () => {
        if (ban.dataset.armed) {
          done(() => send({ type: "ban", user: user.id }))();
          return;
        }
        ban.dataset.armed = "1";
        ban.textContent = t("people.ban_confirm", { name });
        say(t("people.ban_confirm", { name }));
      }, `person-ban-${index}`);
      row.append(ban);
      li.append(row);
    }
    list.append(li);
  });
  const description = host ? t("people.desc_host") : t("people.desc");
  openList(t("people.title", { n: people.length }), description, people.length ? [list] : [paragraph(t("people.none"))]);
}

export function openBots({ send, onLevel }) {
  const table = state.table;
  const levels = state.hello?.bot_levels || ["random"];
  const wrap = document.createElement("div");
  wrap.className = "field";
  const label = document.createElement("label");
  label.htmlFor = "bot-level-choice";
  label.textContent = t("bots.level");
  const select = document.createElement("select");
  select.id = "bot-level-choice";
  for (const level of levels) {
    const option = document.createElement("option");
    option.value = level;
    option.textContent = levelName(level);
    select.append(option);
  }
  select.value = levels.includes(state.prefs.botLevel) ? state.prefs.botLevel : levels[0];
  select.setAttribute("aria-describedby", "bot-level-desc");
  const desc = paragraph(t("bots.level_desc"), "desc");
  desc.id = "bot-level-desc";
  const add = () => {
    onLevel(select.value);
    send({ type: "bot_add", level: select.value });
  };
  // Enter on the level adds the bot, as the Add button does.
  select.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    done(add)();
  });
  wrap.append(label, select, desc);
  const children = [wrap, button(t("bots.add"), done(add), "bots-add")];
  const bots = (table.info.seats || []).filter((s) => s.bot && !s.user);
  if (bots.length) {
    const list = document.createElement("ul");
    list.className = "plain-list bot-list";
    list.setAttribute("aria-label", t("bots.at_table"));
    for (const seat of bots) {
      const li = document.createElement("li");
      const text = t("bots.remove", { n: seat.seat + 1, level: levelName(seat.bot) });
      li.append(button(text, done(() => send({ type: "bot_remove", seat: seat.seat })), `bots-remove-${seat.seat}`));
      list.append(li);
    }
    children.push(list);
  } else {
    children.push(paragraph(t("bots.none"), "muted"));
  }
  openList(t("bots.title"), t("bots.desc"), children);
}

// A busy room's invitation: the invitee's name, typed (the room finds them by name); Enter or the button sends it.
function inviteByName(send) {
  const wrap = document.createElement("div");
  wrap.className = "field";
  const label = document.createElement("label");
  label.htmlFor = "invite-name";
  label.textContent = t("invite.name");
  const input = document.createElement("input");
  input.id = "invite-name";
  input.autocomplete = "off";
  input.maxLength = 40;
  const invite = button(t("invite.send"), () => {
    const name = input.value.trim();
    if (!name) return input.focus();
    closeDialog($("list-dialog"));
    send({ type: "invite", user: name });
  }, "invite-by-name");
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault(); // not the dialog's own form (Close)
    invite.click();
  });
  wrap.append(label, input, invite);
  return wrap;
}

export function openInvite({ send }) {
  const info = state.table.info;
  const here = new Set(tablePeople(info).map((p) => p.user.id));
  // A busy room's list is empty (or the long one asked for in the lobby, as it was then): a name instead.
  if (peopleCounted()) {
    openList(t("invite.title"), t("invite.desc"), [inviteByName(send)]);
    return;
  }
  const others = state.lobby.users.filter((u) => u.id !== state.user?.id && !here.has(u.id));
  const children = [];
  if (others.length) {
    const list = document.createElement("ul");
    list.className = "plain-list";
    others.forEach((user, index) => {
      const li = document.createElement("li");
      li.append(button(t("invite.user", { name: user.name }), done(() => send({ type: "invite", user: user.id })),
                       `invite-${index}`));
      list.append(li);
    });
    children.push(list);
  } else {
    children.push(paragraph(t("invite.none")));
  }
  openList(t("invite.title"), t("invite.desc"), children);
}

// The password of a table, asked before joining it; `error` is the room's sentence after a wrong try.
export function askPassword({ name, error, onSubmit }) {
  const dialog = $("password-dialog");
  $("password-dialog-title").textContent = t("join.password_title", { name });
  const errorText = $("password-dialog-error");
  errorText.textContent = error || "";
  errorText.hidden = !error;
  const input = $("join-password");
  input.value = "";
  if (error) input.setAttribute("aria-describedby", "password-dialog-error");
  else input.removeAttribute("aria-describedby");
  $("password-form").onsubmit = (event) => {
    event.preventDefault();
    const password = input.value;
    if (!password) return;
    closeDialog(dialog);
    onSubmit(password);
  };
  $("password-cancel").onclick = () => closeDialog(dialog);
  openDialog(dialog, { focus: input });
}
