// The keys: every screen's commands (one list gives the key map, the menu of the Applications key and F1's help),
// the menu itself, and the one keydown handler that runs a command unless a letter types into a field.

import { focusChat } from "./chat.js";
import { anyDialogOpen, openDialog } from "./dialog.js";
import { t, tn } from "./i18n.js";
import { handText, lastTrickText, potText, scoresText, stockText, timeText, trickText, turnText } from "./info.js";
import { openCreateTable, openStats, quickGame } from "./lobby.js";
import { openModeration } from "./moderation.js";
import { openGames, replayCommands, requestReview } from "./replay.js";
import { applyPrefs, openPrefs } from "./screens.js";
import { net, sounds, speech } from "./services.js";
import { logout } from "./session.js";
import { peopleCounted, state } from "./state.js";
import { replayThisTable, sendTable, spectatorToggle, tableHandlers, tableOptions } from "./table_actions.js";
import { getHand, pauseLabel } from "./table_view.js";

const $ = (id) => document.getElementById(id);

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

function focusActions() {
  const actions = $("actions");
  (actions.querySelector("button") || actions).focus();
}

// U: everyone online; a busy room's count, with the names of the list asked for, if it was (as it was then).
function sayOnline() {
  const names = state.lobby.users.map((u) => u.name).join(", ");
  if (!peopleCounted()) return speech.review(t("online.list", { names }));
  const n = state.lobby.online ?? 0;
  const count = tn("lobby.online_count", n, { n });
  speech.review(names ? `${count} ${t("online.list", { names })}` : count);
}

function commands() {
  const general = [
    { key: "F1", label: t("key.help"), run: openHelp },
    { key: "F2", label: t("key.settings"), run: openPrefs },
    { key: "F4", label: t("key.moderation"), run: openModeration },
    { key: "L", label: t("key.repeat"), run: () => speech.repeatLast(t("speech.nothing")) },
    { key: "PageUp", label: t("key.history_back"), run: () => speech.back(t("speech.history_start")) },
    { key: "PageDown", label: t("key.history_forward"), run: () => speech.forward(t("speech.history_end")) },
    { key: "Alt+PageDown", label: t("key.history_channel"), run: nextHistoryChannel },
    { key: "M", label: t("key.mute"), run: toggleMute },
  ];
  if (state.screen === "lobby") {
    return [
      { key: "N", label: t("key.new_table"), run: openCreateTable },
      { key: "Q", label: t("key.quick_game"), run: quickGame },
      { key: "E", label: t("key.chat"), run: focusChat },
      { key: "U", label: t("key.online"), run: sayOnline },
      { key: "S", label: t("key.stats"), run: openStats },
      { key: "G", label: t("key.games"), run: openGames },
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
      { key: "Shift+C", label: t("key.last_trick"), run: info(lastTrickText) },
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
      { key: "Shift+H", label: t("key.hint"), run: () => sendTable({ type: "hint" }) },
      { key: "Shift+R", label: t("key.review_hand"), run: () => state.table && requestReview(state.table.id) },
      { key: "Alt+R", label: t("key.replay_table"), run: replayThisTable },
      ...general,
      { key: "", label: pauseLabel(state.table?.info), run: tableHandlers.pause },
      { key: "", label: t("key.leave"), run: tableHandlers.leave },
    ];
  }
  if (state.screen === "replay") return [...replayCommands(), ...general];
  return general.filter((c) => ["F1", "F2", "L", "PageUp", "PageDown", "M"].includes(c.key));
}


function nextHistoryChannel() {
  const { channel, count } = speech.nextHistoryChannel();
  speech.review(tn("speech.history_channel", count, { channel: t(`history.${channel || "all"}`), n: count }));
}

function toggleMute() {
  state.prefs.sound = !state.prefs.sound;
  applyPrefs();
  speech.review(t(state.prefs.sound ? "speech.unmuted" : "speech.muted"));
}


function keyName(event) {
  let name = event.key.length === 1 ? event.key.toUpperCase() : event.key;
  if (event.shiftKey && (event.key.length === 1 || /^(F\d|Arrow|Home$|End$)/.test(name))) name = `Shift+${name}`;
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
  if (typing && /^(Arrow|Home|End)/.test(event.key)) return; // and arrows move in it
  if (event.ctrlKey || event.metaKey) return;
  if ((name === "PageUp" || name === "PageDown") && event.target.tagName === "TEXTAREA") return;
  const command = commands().find((c) => c.key && c.key === name && !c.menuOnly);
  if (!command) return;
  event.preventDefault();
  command.run();
}

// The menu button, the menu's own keys, and the keys and right-click of the whole page.
export function wireKeys() {
  $("help-button").addEventListener("click", openHelp);
  $("menu-button").addEventListener("click", () => ($("menu").hidden ? openMenu() : closeMenu()));
  $("menu").addEventListener("keydown", onMenuKey);
  document.addEventListener("keydown", onKeyDown);
  document.addEventListener("contextmenu", (event) => {
    if (event.target.closest?.("input, textarea")) return;
    event.preventDefault();
    if ($("menu").hidden) openMenu();
  });
  document.addEventListener("click", (event) => {
    if (!$("menu").hidden && !event.target.closest("#menu, #menu-button")) closeMenu(false);
  });
}
