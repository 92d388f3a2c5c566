// trickroom's web client: screens (sign-in, lobby, table), the room's messages, speech, sounds and keys.
// The client renders and speaks; every rule decision (what is legal, who wins) comes from the server.
// This entry module routes the room's messages to the modules that handle them, wires the page and starts.

import { chatHandlers, wireChat } from "./chat.js";
import { askPassword } from "./host.js";
import { loadLang, t } from "./i18n.js";
import { wireKeys } from "./keys.js";
import { joinTable, lobbyHandlers, wireLobby } from "./lobby.js";
import { initModeration, moderationHandlers, onModerationReply } from "./moderation.js";
import {
  initReplays, onExport, onGames, onReplay, onReplayRefused, onReview, openReplay, replayFromLink,
} from "./replay.js";
import { applyPrefs, openPrefs, show } from "./screens.js";
import { net, sounds, speech } from "./services.js";
import { onStatus, sessionHandlers, wireSignin } from "./session.js";
import { newId, saveToken, state } from "./state.js";
import { playCards } from "./table_actions.js";
import { tableMessageHandlers, tickCountdown } from "./table_messages.js";
import { initTableView } from "./table_view.js";

const $ = (id) => document.getElementById(id);

// A journal message seen already (a resume overlapping what arrived live) is dropped, never spoken twice. While a
// table is resumed, what comes live can overtake the resume's missed messages ("Anna is back." at the login): a
// missed message is new unless it came live meanwhile.
function fresh(m) {
  const catching = state.catchUp.get(m.table);
  if (catching && m.missed) {
    if (m.seq <= catching.after || catching.live.has(m.seq)) return false;
  } else {
    if (m.seq <= (state.lastSeq[m.table] || 0)) return false;
    if (catching) catching.live.add(m.seq);
  }
  state.lastSeq[m.table] = Math.max(state.lastSeq[m.table] || 0, m.seq);
  return true;
}

function onMessage(m) {
  const journal = m.table && typeof m.seq === "number" && ["event", "table_event", "chat"].includes(m.type);
  if (journal && !fresh(m)) return;
  const handler = HANDLERS[m.type];
  if (handler) handler(m);
}

const HANDLERS = {
  ...sessionHandlers, // hello, welcome, reconnect, preferences (js/session.js)
  ...lobbyHandlers, // the lobby's tables and people, invitations, statistics (js/lobby.js)
  ...chatHandlers, // chat and private messages (js/chat.js)
  ...tableMessageHandlers, // the table shown: snapshot, events, updates, your turn, timer (js/table_messages.js)
  // Every refusal is said here; the modules whose request it answers forget that request (and may ask again).
  error(m) {
    if (state.pendingAct && m.re === state.pendingAct.id) state.pendingAct = null;
    onModerationReply(m);
    sounds.play("error");
    speech.say(m.text, { channel: "system", assertive: true, always: true });
    // A table we were at refused us on coming back (closed meanwhile, made private, a ban): its screen is stale.
    const refused = state.pendingResumes.get(m.re);
    state.pendingResumes.delete(m.re);
    if (refused) state.catchUp.delete(refused);
    if (refused && state.table?.id === refused) {
      state.table = null;
      show("lobby", { focus: true });
    }
    onReplayRefused(m);
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
  games(m) {
    onGames(m);
  },
  replay(m) {
    onReplay(m);
  },
  review(m) {
    onReview(m);
  },
  history(m) {
    onExport(m);
  },
  transcript(m) {
    onExport(m);
  },
  ok(m) {
    if (state.pendingAct && m.re === state.pendingAct.id) state.pendingAct = null;
    onModerationReply(m);
  },
  pong() {},
  ...moderationHandlers, // F4's replies and the room's moderation messages (js/moderation.js)
};

function wire() {
  wireSignin();
  wireLobby();
  $("settings-button").addEventListener("click", openPrefs);
  wireChat();
  wireKeys();
  // A replay link opened in this tab (pasted, or followed from the chat): the replay, once signed in.
  window.addEventListener("hashchange", () => {
    const linked = replayFromLink();
    if (linked && state.user && state.replay?.table !== linked) openReplay(linked);
  });
  document.addEventListener("pointerdown", () => sounds.unlock());
}

async function start() {
  wire(); // at once, so that no form is submitted by the browser itself while the words load
  // The page's words first (English if the remembered language is not offered any more), then the room; focus goes
  // to the nickname when the room's hello has come (a login typed before could not be sent).
  state.prefs.lang = await loadLang(state.prefs.lang).then(() => state.prefs.lang, async () => {
    await loadLang("en");
    return "en";
  });
  applyPrefs();
  initTableView({ onPlayCards: playCards });
  initReplays({
    send: (message) => {
      if (net.send(message)) return true;
      speech.say(t("speech.offline"), { assertive: true, always: true });
      return false;
    },
    say: (text) => speech.say(text, { channel: "system", always: true }),
    review: (text) => speech.review(text),
    show: (screen) => show(screen),
    leave: () => show(state.table ? "table" : "lobby", { focus: true }),
  });
  initModeration({ send: (message) => net.send(message), say: (text) => speech.say(text, { channel: "system", always: true }),
                   newId });
  show("signin");
  net.onMessage = onMessage;
  net.onStatus = onStatus;
  net.connect();
  // For tests and debugging: the state and a way to drop the connection as a network failure would.
  window.trickroom = { state, speech, net, sounds };
  setInterval(tickCountdown, 1000);
}

start();
