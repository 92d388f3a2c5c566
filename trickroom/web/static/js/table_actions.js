// What the player does at a table: the host's controls (start, bots, options and settings, pause, invite), sitting
// and standing, leaving, playing. Each becomes one message to the room; what happens is said from its answer.

import { openTableDialog } from "./forms.js";
import { openBots, openInvite, openPeople } from "./host.js";
import { t } from "./i18n.js";
import { openReplay } from "./replay.js";
import { net, speech } from "./services.js";
import { newId, savePrefs, state } from "./state.js";

export const tableHandlers = {
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

export function sendTable(message) {
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

export function firstFreeSeat(info) {
  return (info.seats || []).find((s) => !s.user && !s.bot)?.seat;
}

export function spectatorToggle() {
  const table = state.table;
  if (!table) return;
  if (table.you?.seat !== null && table.you?.seat !== undefined) sendTable({ type: "stand" });
  else sendTable({ type: "sit" }); // any free seat, chosen by the server; if none, it explains why not
}

export function rememberBotLevel(level) {
  state.prefs.botLevel = level;
  savePrefs(state.prefs);
}

// The host gets the options dialog (the game's options while the table waits, its settings at any time); anyone
// else hears the options sentence.
export function tableOptions() {
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
  if (result.hints !== Boolean(info.hints)) settings.hints = result.hints;
  if (Object.keys(settings).length) sendTable({ type: "settings", ...settings });
}

export function playCards(cards) {
  sendAct(`play ${cards.join(" ")}`);
}

// A finished table's game, from its first deal (the replay screen); before the end there is nothing to replay.
export function replayThisTable() {
  if (!state.table) return speech.review(t("speech.not_at_table"));
  if (state.table.info.status !== "finished") return speech.review(t("speech.replay_not_finished"));
  openReplay(state.table.id);
}
