// Which screen is shown (sign-in, lobby, table, replay) and where focus goes then; the player's preferences
// applied to the page (language, speech, sounds, contrast, text size) and the settings dialog (F2).

import { openSettings } from "./forms.js";
import { applyStatic, loadLang, setLang, t } from "./i18n.js";
import { renderLobby } from "./lobby.js";
import { renderReplay } from "./replay.js";
import { net, sounds, speech } from "./services.js";
import { renderConnStatus } from "./session.js";
import { newId, savePrefs, state } from "./state.js";
import { tableHandlers } from "./table_actions.js";
import { renderTable } from "./table_view.js";

const $ = (id) => document.getElementById(id);

export function applyPrefs() {
  const p = state.prefs;
  setLang(p.lang);
  speech.mode = p.speech;
  speech.verbosity = { ...p.verbosity };
  speech.voiceLang = t("language.voice");
  sounds.enabled = p.sound;
  sounds.volume = p.volume / 100;
  document.documentElement.classList.toggle("high-contrast", p.contrast);
  document.documentElement.classList.toggle("large-text", p.large);
  applyStatic();
  renderConnStatus();
  $("signin-lang").value = p.lang;
  const titles = { signin: "signin.title", lobby: "lobby.title", table: "table.felt", replay: "replay.screen" };
  document.title = `trickroom · ${t(titles[state.screen])}`;
  savePrefs(p);
}

// The words of the new language are loaded from the server first; the page is relabelled when they are here.
export async function setLanguage(code) {
  state.prefs.lang = code;
  await loadLang(code);
  if (state.prefs.lang !== code) return; // another choice came while these words were on their way
  applyPrefs();
  if (state.user) net.send({ type: "preferences", lang: code });
  renderAll();
  speech.say(t("speech.lang_changed"), { channel: "system" });
}

// A preference the room keeps for the user (auto_pass): sent at once, as the language is.
function sendRoomPref(change) {
  if (state.user) net.send({ type: "preferences", ...change, id: newId() });
}

async function onPrefsChange(which) {
  if (which === "set-lang") {
    await setLanguage(state.prefs.lang);
    openSettings({ onChange: onPrefsChange, onRoomPref: sendRoomPref }); // relabel the open dialog in the new language
    return;
  }
  applyPrefs();
}

// F2 and the Settings button.
export function openPrefs() {
  openSettings({ onChange: onPrefsChange, onRoomPref: sendRoomPref });
}

export function show(screen, { focus = false } = {}) {
  const changed = state.screen !== screen;
  state.screen = screen;
  for (const name of ["signin", "lobby", "table", "replay"]) $(`screen-${name}`).hidden = name !== screen;
  applyPrefs();
  followLobby(screen);
  if (focus || changed) {
    const target = screen === "signin" ? $("guest-nickname") : $(`${screen}-title`);
    if (focus || !document.activeElement || document.activeElement === document.body ||
        document.activeElement.closest("[hidden]")) {
      target?.focus();
    }
  }
}

// The lobby's changes are needed only while the lobby is shown (docs/protocol.md, "Lobby", version 2): at a table
// the client stops them, and coming back asks for a fresh lobby, which starts them again.
function followLobby(screen) {
  if (!state.user) return;
  if (screen === "table" && state.followingLobby) {
    state.followingLobby = false;
    net.send({ type: "lobby", follow: false });
  } else if (screen === "lobby" && !state.followingLobby) {
    state.followingLobby = true;
    net.send({ type: "lobby" });
  }
}

export function renderAll() {
  renderLobby();
  if (state.table) renderTable(tableHandlers);
  renderReplay();
}
