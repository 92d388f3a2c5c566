// Replays, the "my games" list and the review of a hand (docs/replays.md). A finished game comes from the room one
// hand at a time ("replay"): each step's sentences (the ones the table said), the public view and every seat's
// cards. The replay screen steps through it by action, by trick and by hand; a step is spoken when it is reached.
// The review (the room's "review": the hard bot's estimate of the player's decisions) is a listbox in a dialog.

import { closeDialog, openDialog } from "./dialog.js";
import { cardList, t, tn } from "./i18n.js";
import { scoresText, trickText, turnText } from "./info.js";
import { newId, state } from "./state.js";

const $ = (id) => document.getElementById(id);
let context = null; // {send, say, review, show, leave}: what app.js lends this module

export function initReplays(ctx) {
  context = ctx;
  const buttons = {
    "replay-prev": () => step(-1), "replay-next": () => step(1), "replay-prev-trick": () => byTrick(false),
    "replay-next-trick": () => byTrick(true), "replay-prev-hand": () => byHand(false),
    "replay-next-hand": () => byHand(true), "replay-start": () => go(0), "replay-end": () => go(total() - 1),
    "replay-last-trick": lastTrick, "replay-jump": openJump, "replay-review": reviewThisHand,
    "replay-export-json": () => exportAs("history"), "replay-export-text": () => exportAs("transcript"),
    "replay-share": shareLink, "replay-close": closeReplay,
  };
  for (const [id, run] of Object.entries(buttons)) $(id).addEventListener("click", run);
  $("games-form").addEventListener("submit", (event) => {
    event.preventDefault();
    closeDialog($("games-dialog"));
  });
  $("review-form").addEventListener("submit", (event) => {
    event.preventDefault();
    closeDialog($("review-dialog"));
  });
  $("review-list").addEventListener("keydown", onReviewKey);
  $("jump-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const hand = parseInt($("jump-hand").value, 10);
    closeDialog($("jump-dialog"));
    toHand(hand, "first");
  });
  $("jump-cancel").addEventListener("click", () => closeDialog($("jump-dialog")));
}

// The keys of the replay screen (also in its menu and F1).
export function replayCommands() {
  return [
    { key: "ArrowRight", label: t("key.replay_next"), run: () => step(1) },
    { key: "ArrowLeft", label: t("key.replay_prev"), run: () => step(-1) },
    { key: "ArrowDown", label: t("key.replay_next_trick"), run: () => byTrick(true) },
    { key: "ArrowUp", label: t("key.replay_prev_trick"), run: () => byTrick(false) },
    { key: "Shift+ArrowDown", label: t("key.replay_next_hand"), run: () => byHand(true) },
    { key: "Shift+ArrowUp", label: t("key.replay_prev_hand"), run: () => byHand(false) },
    { key: "Home", label: t("key.replay_start"), run: () => go(0) },
    { key: "End", label: t("key.replay_end"), run: () => go(total() - 1) },
    { key: "Shift+End", label: t("key.replay_last_trick"), run: lastTrick },
    { key: "J", label: t("key.replay_jump"), run: openJump },
    { key: "W", label: t("key.replay_where"), run: () => context.review(where()) },
    { key: "H", label: t("key.replay_hands"), run: () => context.review(handsText()) },
    { key: "C", label: t("key.trick"), run: () => context.review(trickText(asTable())) },
    { key: "S", label: t("key.scores"), run: () => context.review(scoresText(asTable())) },
    { key: "T", label: t("key.turn"), run: () => context.review(turnText(asTable())) },
    { key: "Shift+R", label: t("key.review"), run: reviewThisHand },
    { key: "X", label: t("key.export_json"), run: () => exportAs("history") },
    { key: "Shift+X", label: t("key.export_text"), run: () => exportAs("transcript") },
    { key: "U", label: t("key.replay_link"), run: shareLink },
    { key: "Escape", label: t("key.replay_close"), run: closeReplay },
  ];
}

// --- The games list ----------------------------------------------------------------------------------------

export function openGames() {
  const id = newId();
  if (!context.send({ type: "games", id })) return;
  state.pendingGames = id;
}

export function onGames(m) {
  if (m.re === undefined || m.re !== state.pendingGames) return;
  state.pendingGames = null;
  const list = $("games-list");
  list.replaceChildren();
  for (const game of m.games || []) {
    const li = document.createElement("li");
    const open = document.createElement("button");
    open.type = "button";
    open.textContent = game.text;
    open.setAttribute("aria-describedby", `games-date-${game.table}`);
    open.addEventListener("click", () => {
      closeDialog($("games-dialog"));
      openReplay(game.table);
    });
    const date = document.createElement("span");
    date.id = `games-date-${game.table}`;
    date.className = "muted";
    date.textContent = ` ${formatDate(game.finished_at)}`;
    li.append(open, date);
    list.append(li);
  }
  const summary = m.games?.length ? tn("games.count", m.games.length, { n: m.games.length }) : t("games.none");
  $("games-desc").textContent = summary;
  openDialog($("games-dialog"), { focus: list.querySelector("button") || $("games-close") });
  context.say(summary);
}

function formatDate(iso) {
  if (!iso) return "";
  try {
    return new Intl.DateTimeFormat(document.documentElement.lang || "en", { dateStyle: "medium", timeStyle: "short" })
      .format(new Date(iso));
  } catch {
    return iso.slice(0, 16).replace("T", " ");
  }
}

// --- Opening a replay, one hand at a time -----------------------------------------------------------------

export function openReplay(table) {
  state.replay = { table, info: null, steps: new Map(), position: 0, target: { where: "index", index: 0 } };
  fetchHand(1);
}

function fetchHand(hand) {
  const id = newId();
  state.replay.pending = id;
  if (!context.send({ type: "replay", table: state.replay.table, hand, id })) state.replay.pending = null;
}

export function onReplay(m) {
  const replay = state.replay;
  if (!replay || replay.table !== m.table) return;
  const first = replay.info === null;
  replay.info = { title: m.title, name: m.name, seats: m.seats, you: m.you, hands: m.hands, total: m.total,
                  standings: m.standings };
  for (const s of m.steps) replay.steps.set(s.index, s);
  const target = replay.target;
  replay.target = null;
  if (first) {
    history.replaceState(null, "", `#replay=${encodeURIComponent(replay.table)}`);
    context.show("replay");
    $("replay-board").focus();
    context.say(t("replay.opened", { title: m.title, name: m.name || m.table }));
  }
  if (target) {
    const outline = replay.info.hands[(target.hand || 1) - 1];
    go(target.where === "first" ? outline.first : target.where === "last" ? outline.last : target.index);
  }
}

// A replay refused (a private game, a table that is no more): the screen is not shown.
export function onReplayRefused(m) {
  if (state.replay && m.re === state.replay.pending && state.replay.info === null) {
    state.replay = null;
    history.replaceState(null, "", location.pathname + location.search);
  }
}

export function closeReplay() {
  state.replay = null;
  history.replaceState(null, "", location.pathname + location.search);
  context.leave();
}

// The link that opens this replay for whoever may see it.
export function replayLink(table) {
  return `${location.origin}${location.pathname}#replay=${encodeURIComponent(table)}`;
}

export function replayFromLink() {
  const found = /^#replay=(t\d{1,18})$/.exec(location.hash);
  return found ? found[1] : null;
}

// --- Moving -------------------------------------------------------------------------------------------------

function total() {
  return state.replay?.info?.total || 0;
}

function handOf(index) {
  const hands = state.replay.info.hands;
  return hands.find((h) => h.first <= index && index <= h.last) || hands[hands.length - 1];
}

function current() {
  return state.replay.steps.get(state.replay.position);
}

function go(index) {
  const replay = state.replay;
  if (!replay?.info) return;
  if (index < 0 || index >= total()) {
    context.review(t(index < 0 ? "replay.at_start" : "replay.at_end"));
    return;
  }
  if (!replay.steps.has(index)) {
    replay.target = { where: "index", index, hand: handOf(index).hand };
    fetchHand(replay.target.hand);
    return;
  }
  replay.position = index;
  render();
  const texts = current().text;
  context.review(texts.length ? texts.join(" ") : where());
}

function step(delta) {
  go((state.replay?.position ?? 0) + delta);
}

function toHand(number, where) {
  const replay = state.replay;
  const outline = replay?.info?.hands[number - 1];
  if (!outline) return;
  const index = where === "first" ? outline.first : outline.last;
  if (replay.steps.has(index)) go(index);
  else {
    replay.target = { where, hand: number };
    fetchHand(number);
  }
}

function byTrick(forward) {
  if (!state.replay?.info) return;
  const position = state.replay.position;
  const ends = state.replay.info.hands.flatMap((h) => h.tricks);
  if (forward) go(ends.find((i) => i > position) ?? total());
  else go([...ends].reverse().find((i) => i < position) ?? -1);
}

function byHand(forward) {
  if (!state.replay?.info) return;
  const hand = handOf(state.replay.position).hand + (forward ? 1 : -1);
  if (hand < 1 || hand > state.replay.info.hands.length) {
    context.review(t(forward ? "replay.at_end" : "replay.at_start"));
    return;
  }
  toHand(hand, "first");
}

function lastTrick() {
  if (!state.replay?.info) return;
  const outline = handOf(state.replay.position);
  go(outline.tricks.length ? outline.tricks[outline.tricks.length - 1] : outline.last);
}

function openJump() {
  if (!state.replay?.info) return;
  const select = $("jump-hand");
  select.replaceChildren(...state.replay.info.hands.map((h) => {
    const option = document.createElement("option");
    option.value = String(h.hand);
    option.textContent = t("replay.hand_choice", { hand: h.hand });
    return option;
  }));
  select.value = String(handOf(state.replay.position).hand);
  openDialog($("jump-dialog"), { focus: select });
}

// --- Saying and drawing -------------------------------------------------------------------------------------

function asTable() {
  // The step as the information functions read a table: its public view, every seat by name.
  const replay = state.replay;
  const s = current();
  return { view: s?.view || null, to_act: s?.to_act || [], legal: [], you: { seat: replay?.info?.you ?? null },
           info: { seats: (replay?.info?.seats || []).map((seat) => ({ seat: seat.seat, user: { name: seat.name } })) } };
}

export function where() {
  const replay = state.replay;
  if (!replay?.info) return "";
  const s = current();
  const params = { hand: s.hand, hands: replay.info.hands.length, step: replay.position + 1, steps: total(),
                   trick: s.trick };
  return t(s.trick ? "replay.position" : "replay.position_no_trick", params);
}

function seatCards(seat, cards) {
  const name = state.replay.info.seats[seat]?.name ?? String(seat + 1);
  return t("replay.seat_cards", { name, cards: cards.length ? cardList(cards) : t("replay.no_cards") });
}

function handsText() {
  const s = current();
  if (!s) return "";
  return s.hands.map((cards, seat) => seatCards(seat, cards)).join(" ");
}

function render() {
  const replay = state.replay;
  if (!replay?.info) return;
  const s = current();
  $("replay-title").textContent = t("replay.title", { title: replay.info.title, name: replay.info.name || replay.table });
  $("replay-position").textContent = where();
  $("replay-said").replaceChildren(...(s.text.length ? s.text : [where()]).map((text) => {
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }));
  $("replay-seats").replaceChildren(...s.hands.map((cards, seat) => {
    const li = document.createElement("li");
    const toAct = (s.to_act || []).includes(seat) ? ` ${t("replay.to_act")}` : "";
    li.textContent = seatCards(seat, cards) + toAct;
    return li;
  }));
  const table = asTable();
  $("replay-table").textContent = `${trickText(table)} ${turnText(table)} ${scoresText(table)}`;
  $("replay-link").value = replayLink(replay.table);
}

export function renderReplay() {
  if (state.replay?.info) render();
}

function shareLink() {
  if (!state.replay) return;
  const link = replayLink(state.replay.table);
  const field = $("replay-link");
  field.value = link;
  navigator.clipboard?.writeText(link).catch(() => {});
  context.review(t("replay.link_said", { link }));
}

// --- Export -------------------------------------------------------------------------------------------------

function exportAs(kind) {
  if (!state.replay) return;
  const id = newId();
  state.pendingExport = { id, kind, table: state.replay.table };
  context.send({ type: kind, table: state.replay.table, id });
}

export function onExport(m) {
  const pending = state.pendingExport;
  if (!pending || m.re !== pending.id) return;
  state.pendingExport = null;
  const json = m.type === "history";
  // The seed has 63 bits, more than a JavaScript number holds exactly: the file gets its digits (seed_text), so
  // that the game replays from it.
  const { re, seed_text: seedText, ...history } = m;
  const body = json ? JSON.stringify({ ...history, seed: "@seed@" }, null, 1).replace('"@seed@"', seedText) : m.text;
  const blob = new Blob([body], { type: json ? "application/json" : "text/plain;charset=utf-8" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `trickroom-${pending.table}.${json ? "json" : "txt"}`;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  context.review(t(json ? "replay.exported_json" : "replay.exported_text", { file: link.download }));
}

// --- The review ---------------------------------------------------------------------------------------------

function reviewThisHand() {
  if (!state.replay?.info) return;
  requestReview(state.replay.table, handOf(state.replay.position).hand);
}

export function requestReview(table, hand) {
  const id = newId();
  const message = { type: "review", table, id };
  if (hand) message.hand = hand;
  if (context.send(message)) state.pendingReview = id;
}

export function onReview(m) {
  if (m.status === "computing") {
    context.say(m.text);
    return;
  }
  const list = $("review-list");
  list.replaceChildren(...(m.items || []).map((item, index) => {
    const li = document.createElement("li");
    li.id = `review-item-${index}`;
    li.setAttribute("role", "option");
    li.setAttribute("aria-selected", index === 0 ? "true" : "false");
    li.tabIndex = index === 0 ? 0 : -1;
    li.textContent = item.text;
    li.dataset.move = String(item.move);
    li.dataset.played = item.played;
    li.addEventListener("click", () => chooseItem(li));
    return li;
  }));
  list.hidden = !(m.items || []).length;
  $("review-title").textContent = t("review.title", { hand: m.hand });
  $("review-summary").textContent = m.text;
  state.reviewed = { table: m.table, hand: m.hand, seat: m.seat };
  openDialog($("review-dialog"), { focus: list.querySelector("[role=option]") || $("review-close") });
  context.say(m.text);
}

function moveTo(li) {
  const items = [...$("review-list").children];
  for (const other of items) {
    other.setAttribute("aria-selected", other === li ? "true" : "false");
    other.tabIndex = other === li ? 0 : -1;
  }
  li.focus();
}

function onReviewKey(event) {
  const items = [...$("review-list").children];
  const index = items.indexOf(document.activeElement);
  const to = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: items.length - 1 }[event.key];
  if (to !== undefined) {
    event.preventDefault();
    if (items[to]) moveTo(items[to]);
  } else if (event.key === "Enter" && items[index]) {
    event.preventDefault();
    chooseItem(items[index]);
  }
}

// In a replay, Enter on a decision goes to it (the step where it was made); at a table it only reads it again.
function chooseItem(li) {
  moveTo(li);
  const replay = state.replay;
  if (!replay?.info || state.reviewed?.table !== replay.table) {
    context.review(li.textContent);
    return;
  }
  const move = parseInt(li.dataset.move, 10);
  const found = [...replay.steps.values()].find((s) => s.move === move + 1 && s.action === li.dataset.played);
  closeDialog($("review-dialog"));
  if (found) go(found.index);
}
