// The table dialog (create a table, or change a waiting table's options) built from the options each game
// declares in the server's hello, and the settings dialog. Every control is native (select, number input), so
// arrow keys change the value, and each one's description is tied to it with aria-describedby.

import { closeDialog, openDialog } from "./dialog.js";
import { levelName, t } from "./i18n.js";
import { state } from "./state.js";

const $ = (id) => document.getElementById(id);

function field(labelText, control, description) {
  const wrap = document.createElement("div");
  wrap.className = "field";
  const label = document.createElement("label");
  label.htmlFor = control.id;
  label.textContent = labelText;
  wrap.append(label, control);
  if (description) {
    const desc = document.createElement("p");
    desc.className = "desc";
    desc.id = `${control.id}-desc`;
    desc.textContent = description;
    control.setAttribute("aria-describedby", desc.id);
    wrap.append(desc);
  }
  return wrap;
}

function select(id, choices, value) {
  const el = document.createElement("select");
  el.id = id;
  for (const [optionValue, text] of choices) {
    const option = document.createElement("option");
    option.value = String(optionValue);
    option.textContent = text;
    el.append(option);
  }
  el.value = String(value);
  return el;
}

function numberInput(id, value, min, max) {
  const el = document.createElement("input");
  el.type = "number";
  el.id = id;
  el.value = String(value);
  if (min !== null && min !== undefined) el.min = String(min);
  if (max !== null && max !== undefined) el.max = String(max);
  el.step = "1";
  el.inputMode = "numeric";
  return el;
}

function textInput(id, value, type = "text") {
  const el = document.createElement("input");
  el.type = type;
  el.id = id;
  el.value = value || "";
  el.autocomplete = "off";
  return el;
}

function checkbox(id, text, checked) {
  const wrap = document.createElement("div");
  wrap.className = "field check";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = id;
  box.checked = checked;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = text;
  wrap.append(box, label);
  return wrap;
}

function limits() {
  const timer = state.hello?.timer || {};
  return { min: timer.min ?? 20, max: timer.max ?? 600 };
}

function gameSpec(name) {
  return (state.hello?.games || []).find((g) => g.name === name);
}

// An option's words are in its game's catalog under the message id it declares (Option.key): the description
// itself, its short name (.label) and the name of each choice (.<value>), if it has one.
function optionControl(game, option, value) {
  const id = `opt-${option.name}`;
  const word = (suffix) => t(`${game}:${option.key}${suffix}`);
  const choiceName = (choice) => (word(`.${choice}`) === `${game}:${option.key}.${choice}` ? String(choice)
    : word(`.${choice}`));
  let control;
  if (option.type === "bool") {
    control = select(id, [["false", t("off")], ["true", t("on")]], String(Boolean(value)));
  } else if (option.choices) {
    control = select(id, option.choices.map((c) => [c, choiceName(c)]), value);
  } else if (option.type === "int") {
    control = numberInput(id, value, option.minimum, option.maximum);
  } else {
    control = textInput(id, value);
  }
  control.dataset.option = option.name;
  control.dataset.kind = option.type;
  return field(word(".label"), control, word(""));
}

function readOption(control) {
  const kind = control.dataset.kind;
  if (kind === "bool") return control.value === "true";
  if (kind === "int") return parseInt(control.value, 10);
  return control.value;
}

// mode "create": a new table; mode "edit": the host changes the current table (the game's options only while it
// waits; the settings, that is name, timer, bot delay, private and password, at any time).
export function openTableDialog(mode, { onCreate, onEdit, say }) {
  const dialog = $("table-dialog");
  const fields = $("table-form-fields");
  const table = state.table;
  const editing = mode === "edit";
  const settingsOnly = editing && table.info.status !== "waiting";
  $("table-dialog-title").textContent = settingsOnly ? t("settings.title") : editing ? t("options.title") : t("create.title");
  $("table-form-submit").textContent = editing ? t("options.submit") : t("create.submit");
  const games = state.hello?.games || [];
  let gameName = editing ? table.info.game : games[0]?.name;

  const build = () => {
    fields.replaceChildren();
    if (!editing) {
      const gameSelect = select("opt-game", games.map((g) => [g.name, t(`${g.name}:${g.name}.title`)]), gameName);
      gameSelect.addEventListener("change", () => {
        gameName = gameSelect.value;
        build();
        $("opt-game").focus();
      });
      fields.append(field(t("create.game"), gameSelect));
    }
    fields.append(field(t("create.name"), textInput("opt-name", editing ? table.info.name : "")));
    const spec = gameSpec(gameName);
    for (const option of settingsOnly ? [] : spec?.options || []) {
      const value = editing ? table.info.options[option.name] : option.default;
      fields.append(optionControl(gameName, option, value));
    }
    const timer = numberInput("opt-timer", editing ? table.info.timer : 0, 0, limits().max);
    fields.append(field(t("create.timer"), timer, `${t("create.timer_desc")} ${t("create.timer_bad", limits())}`));
    const delay = numberInput("opt-bot-delay", editing ? table.info.bot_delay : 0, 0, 5);
    fields.append(field(t("create.bot_delay"), delay, t("create.bot_delay_desc")));
    fields.append(field(t("create.private"), select("opt-private", [["false", t("no")], ["true", t("yes")]],
      String(editing ? table.info.private : false)), t("create.private_desc")));
    fields.append(field(t("create.hints"), select("opt-hints", [["false", t("no")], ["true", t("yes")]],
      String(editing ? Boolean(table.info.hints) : false)), t("create.hints_desc")));
    fields.append(field(t("create.password"), textInput("opt-password", "", "password"),
      editing && table.info.password ? t("create.password_keep_desc") : t("create.password_desc")));
    if (editing && table.info.password) fields.append(checkbox("opt-remove-password", t("create.remove_password"), false));
    const levels = state.hello?.bot_levels || ["random"];
    const level = levels.includes(state.prefs.botLevel) ? state.prefs.botLevel : levels[0];
    if (!settingsOnly) {
      fields.append(field(t("create.bot_level"), select("opt-bot-level", levels.map((l) => [l, levelName(l)]), level),
        t("create.bot_level_desc")));
    }
    if (!editing) fields.append(checkbox("opt-sit", t("create.sit"), true));
  };
  build();

  const form = $("table-form");
  // Enter on a select submits too, as it does on a text field: the whole dialog is one form.
  form.onkeydown = (event) => {
    if (event.key === "Enter" && event.target.tagName === "SELECT") {
      event.preventDefault();
      form.requestSubmit();
    }
  };
  form.onsubmit = (event) => {
    event.preventDefault();
    // The timer is 0 (none) or within the room's limits; anything else is refused here, said and kept in view.
    const timerField = $("opt-timer");
    const timerValue = parseInt(timerField.value, 10) || 0;
    if (timerValue !== 0 && (timerValue < limits().min || timerValue > limits().max)) {
      const message = t("create.timer_bad", limits());
      let error = $("opt-timer-error");
      if (!error) {
        error = document.createElement("p");
        error.id = "opt-timer-error";
        error.className = "error-text";
        timerField.after(error);
        timerField.setAttribute("aria-describedby", `opt-timer-error ${timerField.getAttribute("aria-describedby")}`);
      }
      error.textContent = message;
      timerField.setAttribute("aria-invalid", "true");
      timerField.focus();
      say?.(message);
      return;
    }
    const options = {};
    for (const control of fields.querySelectorAll("[data-option]")) options[control.dataset.option] = readOption(control);
    const result = {
      game: gameName,
      options,
      name: $("opt-name").value.trim(),
      timer: timerValue,
      bot_delay: parseFloat($("opt-bot-delay").value) || 0,
      private: $("opt-private").value === "true",
      hints: $("opt-hints").value === "true",
      password: $("opt-password").value,
      removePassword: Boolean($("opt-remove-password")?.checked),
      botLevel: $("opt-bot-level")?.value ?? state.prefs.botLevel,
      sit: editing ? false : $("opt-sit").checked,
    };
    closeDialog($("table-dialog"));
    if (editing) onEdit(result);
    else onCreate(result);
  };
  $("table-form-cancel").onclick = () => closeDialog(dialog);
  openDialog(dialog, { focus: editing ? $("opt-name") : $("opt-game") });
}

export function openSettings({ onChange, onRoomPref }) {
  const dialog = $("settings-dialog");
  const prefs = state.prefs;
  $("set-lang").value = prefs.lang;
  $("set-speech").value = prefs.speech;
  for (const sel of dialog.querySelectorAll("select[data-channel]")) {
    sel.replaceChildren();
    for (const level of ["full", "brief", "off"]) {
      const option = document.createElement("option");
      option.value = level;
      option.textContent = t(`set.verb_${level}`);
      sel.append(option);
    }
    sel.value = prefs.verbosity[sel.dataset.channel];
  }
  $("set-sound").checked = prefs.sound;
  $("set-volume").value = String(prefs.volume);
  $("set-contrast").checked = prefs.contrast;
  $("set-large").checked = prefs.large;
  // Kept by the room (the user's preferences), not in this browser: the room answers the pause.
  $("set-auto-pass").checked = state.roomPrefs?.auto_pass !== false;
  $("set-lobby-chat").checked = state.roomPrefs?.lobby_chat_at_table === true;
  if (!dialog.wired) {
    dialog.addEventListener("change", (event) => {
      const target = event.target;
      const p = state.prefs;
      if (target.id === "set-lang") p.lang = target.value;
      else if (target.id === "set-speech") p.speech = target.value;
      else if (target.dataset.channel) p.verbosity[target.dataset.channel] = target.value;
      else if (target.id === "set-sound") p.sound = target.checked;
      else if (target.id === "set-volume") p.volume = parseInt(target.value, 10);
      else if (target.id === "set-contrast") p.contrast = target.checked;
      else if (target.id === "set-large") p.large = target.checked;
      else if (target.id === "set-auto-pass") {
        state.roomPrefs = { ...(state.roomPrefs || {}), auto_pass: target.checked };
        dialog.onRoomPref?.({ auto_pass: target.checked });
      } else if (target.id === "set-lobby-chat") {
        state.roomPrefs = { ...(state.roomPrefs || {}), lobby_chat_at_table: target.checked };
        dialog.onRoomPref?.({ lobby_chat_at_table: target.checked });
      }
      dialog.onPrefsChange?.(target.id);
    });
    $("settings-form").addEventListener("submit", (event) => {
      event.preventDefault();
      closeDialog(dialog);
    });
    dialog.wired = true;
  }
  dialog.onPrefsChange = onChange;
  dialog.onRoomPref = onRoomPref;
  openDialog(dialog, { focus: $("set-lang") });
}
