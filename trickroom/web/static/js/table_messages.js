// The room's messages about the table being shown: its snapshot, the game's events and updates, your turn, the
// timer, the table's own events (people coming and going, the host's changes), leaving it, the hard bot's hint.
// What is spoken, on which channel and how urgently, and which sound comes with it.

import { t, tn } from "./i18n.js";
import { secondsLeft } from "./info.js";
import { startQuickGame } from "./lobby.js";
import { show } from "./screens.js";
import { net, sounds, speech } from "./services.js";
import { state } from "./state.js";
import { firstFreeSeat, sendTable, tableHandlers } from "./table_actions.js";
import { renderTable } from "./table_view.js";

const $ = (id) => document.getElementById(id);

// Game events that stay spoken in "brief" mode; the rest (draws, "has answered"...) are details.
const ESSENTIAL_EVENTS = new Set(["deal", "hand", "cards", "play", "trick", "claim", "hand_end", "match_end",
  "announced", "redeal", "stock_closed", "bid", "exchange", "keep", "deal_complete", "meld", "throw_in",
  "extra_hands", "leave"]);
const ESSENTIAL_TABLE_EVENTS = new Set(["started", "finished", "sat", "stood", "left", "kicked", "banned",
  "bot_added", "bot_removed", "host", "paused", "resumed", "pause_requested", "pause_cancelled", "timeout",
  "bot_took_over", "took_back", "options", "moderator_watching"]);
const EVENT_SOUNDS = { play: "card", trick: "trick", claim: "claim", meld: "combo" };
const JOIN_KINDS = new Set(["sat", "joined", "bot_added", "reconnected", "took_back"]);
const LEAVE_KINDS = new Set(["stood", "left", "bot_removed", "kicked", "banned", "disconnected"]);

// Missed messages (sent again by a resume) are not said as they come: after a page load they go to the history
// only; after a drop they wait for the table's snapshot (sayMissed). Either way, no sound each.
export function quiet(m) {
  return Boolean(m.missed && m.table && state.catchUp.has(m.table));
}

export function sayFrom(m, options) {
  const catching = m.missed && m.table ? state.catchUp.get(m.table) : undefined;
  if (!catching) speech.say(m.text, options);
  else if (catching.quiet) speech.say(m.text, { ...options, speak: false });
  else if (m.text) catching.missed.push({ text: m.text, options });
}

// After a drop, what was missed: a few sentences are said as they would have been; more go to the history, and
// one sentence says how many (someone coming back needs the table as it is now, and their turn, not a replay).
const MISSED_SAID_AT_MOST = 4; // the sentences of one Bura trick
function sayMissed(missed) {
  const said = missed.length <= MISSED_SAID_AT_MOST;
  for (const { text, options } of missed) speech.say(text, said ? options : { ...options, speak: false });
  if (!said) speech.say(tn("speech.missed_in_history", missed.length, { n: missed.length }), { channel: "system" });
}

// The end of a hand (or of the match) stays on the felt until the next hand's first action that concerns the
// reader: their own first play, bid or claim, or the end of the next hand's first trick (a spectator's, or a bot
// that leads at once: bots play faster than anyone reads). A summary region, not a live region (the sentence is
// spoken once, with the event; it is in the history too).
const SUMMARY_EVENTS = new Set(["hand_end", "match_end", "throw_in", "extra_hands"]);
const FIRST_ACTIONS = new Set(["play", "bid", "claim"]);
function showSummary(kind, text, event) {
  const region = $("hand-summary");
  const mine = event?.seat !== undefined && event.seat === state.table?.you?.seat;
  if (SUMMARY_EVENTS.has(kind) && text) {
    const text_ = $("summary-text");
    text_.textContent = region.hidden ? text : `${text_.textContent} ${text}`;
    region.hidden = false;
  } else if ((FIRST_ACTIONS.has(kind) && mine) || kind === "trick") {
    region.hidden = true;
    $("summary-text").textContent = "";
  }
}

function deadlineAt(seconds) {
  return typeof seconds === "number" ? Date.now() + seconds * 1000 : null;
}

// The visible countdown (not a live region: the time is spoken by the I key and the room's warning).
export function tickCountdown() {
  const el = document.getElementById("time-left");
  const seconds = state.table ? secondsLeft(state.table) : null;
  if (el && seconds !== null) el.textContent = t("table.seconds", { n: seconds });
}

export const tableMessageHandlers = {
  snapshot(m) {
    const resumed = state.pendingResumes.has(m.re); // the answer to a resume (it carries re too): focus stays put
    for (const [request, table] of state.pendingResumes) if (table === m.table) state.pendingResumes.delete(request);
    const arriving = !state.table || state.table.id !== m.table;
    state.table = { id: m.table, info: m.info, you: m.you, view: m.view, legal: m.legal || [], to_act: m.to_act || [],
                    deadline: m.deadline, deadlineAt: deadlineAt(m.deadline), standings: m.standings, move: m.move };
    // After a reconnect: the act that went unanswered goes again (the room ignores it if it was applied).
    if (state.pendingAct?.table === m.table) net.send(state.pendingAct);
    if (state.pendingJoin?.table === m.table) state.pendingJoin = null;
    state.lastSeq[m.table] = Math.max(state.lastSeq[m.table] || 0, m.seq || 0);
    // A turn is said again after a reconnection, not after a quiet move to the table's node (heard just before).
    if (!state.quietResumes.delete(m.table)) state.turnSaid = null;
    if (state.movedTables.delete(m.table)) {
      speech.say(t("speech.moved_back"), { channel: "system", assertive: true, always: true });
    }
    const catching = state.catchUp.get(m.table);
    state.catchUp.delete(m.table);
    if (catching?.quiet) speech.say(t("speech.back_at_table", { name: m.info.name }), { channel: "system" });
    else if (catching) sayMissed(catching.missed);
    let quick = false;
    if (state.pendingCreate && m.re === state.pendingCreate.id) {
      quick = Boolean(state.pendingCreate.quick);
      if (state.pendingCreate.sit && !quick) state.pendingSit = m.table;
      state.pendingCreate = null;
    }
    if (quick) startQuickGame(m.info);
    if (state.pendingSit === m.table) {
      state.pendingSit = null;
      if ((m.you.seat === null || m.you.seat === undefined) && firstFreeSeat(m.info) !== undefined) {
        sendTable({ type: "sit" }); // any free seat: the server picks, so two people joining never collide
      }
    }
    renderTable(tableHandlers);
    // A replay being watched (opened by a shared link, say) stays on screen; Escape there comes back to the table.
    if (state.screen !== "replay") show("table", { focus: arriving && m.re !== undefined && !resumed });
  },
  event(m) {
    const kind = m.event?.type;
    // The room decides what cuts in: only what asks this listener to act now (a claim against them) is assertive.
    const options = { channel: "game", essential: ESSENTIAL_EVENTS.has(kind), assertive: m.urgency === "assertive" };
    if (!state.table || state.table.id !== m.table) {
      if (quiet(m)) sayFrom(m, options); // a table resumed after a page load: its journal comes before its snapshot
      return;
    }
    if (!quiet(m)) {
      const sound = kind === "announced" ? (m.event.announcements?.length ? "combo" : null) : EVENT_SOUNDS[kind];
      if (sound) sounds.play(sound);
    }
    if (kind === "trick") state.table.lastTrick = m.event; // for Shift+C (the last trick)
    showSummary(kind, m.text, m.event);
    sayFrom(m, options);
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
    // The room says your_turn once per decision; a copy for the same move and choices (sent again after a
    // reconnect) is said once. The move is part of it: a new hand's first pause offers the same choices as the
    // last one and must be said (turnSaid used to survive the hand).
    const signature = `${m.move}|${(m.legal || []).join("|")}`;
    if (state.turnSaid !== signature) {
      state.turnSaid = signature;
      sounds.play("turn");
      speech.say(m.text, { channel: "game", assertive: true });
      if (typeof m.deadline === "number") {
        speech.say(tn("speech.deadline", Math.round(m.deadline), { n: Math.round(m.deadline) }), { channel: "game", assertive: true });
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
    const options = { channel: "system", essential: ESSENTIAL_TABLE_EVENTS.has(m.kind) };
    if (!state.table || state.table.id !== m.table) {
      if (quiet(m)) sayFrom(m, options);
      return;
    }
    state.table.info = m.info;
    const seat = state.table.info.seats?.find((s) => s.user && s.user.id === state.user?.id);
    state.table.you = { seat: seat ? seat.seat : null, host: m.info.host?.id === state.user?.id };
    if (m.kind === "finished") state.table.standings = m.standings;
    if (!quiet(m) && m.text) { // a sound comes with its sentence: none for one's own return (said by the client)
      if (JOIN_KINDS.has(m.kind)) sounds.play("join");
      else if (LEAVE_KINDS.has(m.kind)) sounds.play("leave");
    }
    sayFrom(m, options);
    renderTable(tableHandlers);
  },
  left(m) {
    if (state.table && state.table.id === m.table) {
      state.table = null;
      show("lobby", { focus: true }); // which asks for a fresh lobby (followLobby)
    }
    speech.say(m.text, { channel: "system" });
  },
  // The hard bot's hint: said at once, like the answer to a key the player pressed.
  hint(m) {
    speech.say(m.text, { channel: "game", assertive: true, always: true });
  },
};
