// Drawing the table screen from state.table: seats around the felt, the trick, trump and stock, the hand, the
// legal actions as buttons, the scores. Re-rendering keeps focus where the player left it.

import { cardFace, Hand } from "./hand.js";
import { actionText, cardList, cardName, levelName, suitName, t, tn } from "./i18n.js";
import { potText, scoresText, seatName, secondsLeft, teamName, trickPlays } from "./info.js";
import { state } from "./state.js";

const $ = (id) => document.getElementById(id);
let hand = null;

export function initTableView({ onPlayCards }) {
  hand = new Hand($("hand"), { onPlay: onPlayCards });
}

export function getHand() {
  return hand;
}

function isHost() {
  return Boolean(state.table?.you?.host);
}

export function renderTable(handlers) {
  const table = state.table;
  if (!table) return;
  const info = table.info || {};
  $("table-title").textContent = `${info.name || ""} · ${info.title || ""} (${t(`room:status.${info.status}`)})`;
  $("table-options-text").textContent = info.options_text || "";
  renderHostControls(handlers);
  renderSeats();
  renderFelt();
  renderHand();
  renderActions(handlers);
  const scores = $("scores");
  // In points scoring the pot sentence repeats the scores; the panel shows it only for chips or own points.
  const extra = table.view && (table.view.game !== "bura" || table.view.unit === "chips" ||
    typeof table.view.my_points === "number") ? ` ${potText(table)}` : "";
  scores.textContent = table.view ? `${scoresText(table)}${extra}` : t("table.not_started");
}

function button(label, onClick, { key, id } = {}) {
  const el = document.createElement("button");
  el.type = "button";
  el.textContent = label;
  if (key) el.setAttribute("aria-keyshortcuts", key);
  if (id) el.id = id;
  el.addEventListener("click", onClick);
  return el;
}

// Replace a container's buttons only when the list changed, so a focused button stays focused.
function syncButtons(container, specs, emptyText) {
  const signature = specs.map((s) => `${s.id}|${s.label}`).join("\n") || `empty|${emptyText}`;
  if (container.dataset.signature === signature) return;
  const focusedId = container.contains(document.activeElement) ? document.activeElement.id : null;
  container.dataset.signature = signature;
  container.replaceChildren();
  for (const spec of specs) container.append(button(spec.label, spec.onClick, spec));
  if (!specs.length && emptyText) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = emptyText;
    container.append(p);
  }
  if (focusedId !== null) {
    const again = focusedId && container.querySelector(`#${CSS.escape(focusedId)}`);
    // The focused button is gone: keep focus in this group rather than on the next button (no accidental press).
    if (again) again.focus();
    else container.focus();
  }
}

// The host's one pause control, named for what it will do now.
export function pauseLabel(info) {
  if (info?.status === "paused") return t("table.resume");
  return info?.pause_requested ? t("table.pause_cancel") : t("table.pause");
}

function renderHostControls(h) {
  const table = state.table;
  const waiting = table.info.status === "waiting";
  const seated = table.you?.seat !== null && table.you?.seat !== undefined;
  const specs = [];
  if (isHost() && waiting) {
    specs.push({ id: "ctl-start", label: t("table.start"), onClick: h.start, key: "G" });
    specs.push({ id: "ctl-add-bot", label: t("table.add_bot"), onClick: h.addBot, key: "B" });
    specs.push({ id: "ctl-remove-bot", label: t("table.remove_bot"), onClick: h.removeBot, key: "Shift+B" });
    specs.push({ id: "ctl-bots", label: t("table.bots"), onClick: h.bots, key: "Alt+B" });
    specs.push({ id: "ctl-options", label: t("table.options"), onClick: h.options, key: "Alt+O" });
  }
  if (isHost() && !waiting && table.info.status !== "finished") {
    specs.push({ id: "ctl-settings", label: t("table.settings"), onClick: h.options, key: "Alt+O" });
  }
  if (isHost() && (table.info.status === "playing" || table.info.status === "paused")) {
    const id = table.info.status === "paused" ? "ctl-resume" : "ctl-pause";
    specs.push({ id, label: pauseLabel(table.info), onClick: h.pause });
  }
  specs.push({ id: "ctl-people", label: t("table.people"), onClick: h.people, key: "W" });
  if (isHost() && table.info.status !== "finished") {
    specs.push({ id: "ctl-invite", label: t("table.invite"), onClick: h.invite, key: "V" });
  }
  specs.push({ id: "ctl-seat", label: seated ? t("table.stand") : t("table.sit"), onClick: h.spectator, key: "F3" });
  specs.push({ id: "ctl-leave", label: t("table.leave"), onClick: h.leave });
  syncButtons($("host-controls"), specs);
}

function renderSeats() {
  const table = state.table;
  const seats = table.info.seats || [];
  const view = table.view;
  const list = $("seats");
  list.replaceChildren();
  const mine = table.you?.seat ?? 0;
  const n = seats.length || 1;
  seats.forEach((entry, seat) => {
    const li = document.createElement("li");
    li.className = "seat";
    const parts = [];
    const who = entry.user ? entry.user.name : entry.bot ? t("room:bot.name", { number: seat + 1 }) : t("table.empty_seat");
    let label = `${t("table.seat", { n: seat + 1 })}: ${who}`;
    if (table.you?.seat === seat) label += ` ${t("you_suffix")}`;
    if (entry.bot) parts.push(t("table.bot_level", { level: levelName(entry.bot) }));
    if (entry.user && table.info.host?.id === entry.user.id) parts.push(t("table.host"));
    if (entry.team !== null && entry.team !== undefined) parts.push(teamName(table, entry.team));
    if (entry.user && !entry.connected) parts.push(t("table.away"));
    if (entry.replaced_by_bot) parts.push(t("table.bot_playing"));
    if (view) {
      if (view.dealer === seat) parts.push(t("table.dealer"));
      if ((table.to_act || []).includes(seat) && table.info.status === "playing") parts.push(t("table.to_act"));
      const size = view.hand_sizes?.[seat];
      if (typeof size === "number") parts.push(tn("table.cards_count", size, { n: size }));
    }
    li.textContent = parts.length ? `${label}, ${parts.join(", ")}` : label;
    li.classList.toggle("to-act", Boolean(view && (table.to_act || []).includes(seat)));
    li.classList.toggle("you", table.you?.seat === seat);
    if (entry.team !== null && entry.team !== undefined) li.classList.add(`team-${entry.team}`);
    // Seats sit around the felt, this player at the bottom, clockwise on the left.
    const angle = Math.PI / 2 + ((seat - mine + n) % n) * (2 * Math.PI / n);
    li.style.setProperty("--x", `${50 + 42 * Math.cos(angle)}%`);
    li.style.setProperty("--y", `${50 + 40 * Math.sin(angle)}%`);
    list.append(li);
  });
}

function statusItem(label, text, code, valueId) {
  const item = document.createElement("p");
  item.className = "status-item";
  const strong = document.createElement("strong");
  strong.textContent = `${label}: `;
  let value = document.createTextNode(text);
  if (valueId) { // a span the countdown can update in place
    value = document.createElement("span");
    value.id = valueId;
    value.textContent = text;
  }
  item.append(strong, value);
  if (code) item.append(cardFace(code));
  return item;
}

function renderFelt() {
  const table = state.table;
  const view = table.view;
  const status = $("felt-status");
  status.replaceChildren();
  const trick = $("trick");
  trick.replaceChildren();
  if (!view) {
    status.append(statusItem(t("table.felt"), t("table.not_started")));
    return;
  }
  if (view.game === "bura") {
    status.append(statusItem(t("table.trump"), view.trump_card
      ? `${suitName(view.trump)} (${cardName(view.trump_card)})` : suitName(view.trump), view.trump_card));
    status.append(statusItem(t("table.stock"), String(view.stock)));
    if (view.unit === "chips") status.append(statusItem(t("table.pot"), String(view.pot)));
  } else {
    if (view.trumps) status.append(statusItem(t("table.trump"), suitName(view.trumps)));
    else if (view.face_up) {
      status.append(statusItem(t("table.trump"), `? (${cardName(view.face_up)})`, view.face_up));
    }
  }
  const seconds = secondsLeft(table);
  if (seconds !== null) status.append(statusItem(t("table.time_left"), t("table.seconds", { n: seconds }), null, "time-left"));
  const plays = trickPlays(table);
  if (!plays.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = t("table.trick_empty");
    trick.append(li);
  }
  for (const play of plays) {
    const li = document.createElement("li");
    li.className = "trick-play";
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = `${seatName(table, play.seat)}: `;
    const said = document.createElement("span");
    said.className = "sr-only";
    said.textContent = cardList(play.cards);
    li.append(who, said);
    for (const code of play.cards) li.append(cardFace(code));
    trick.append(li);
  }
}

function renderHand() {
  const table = state.table;
  const view = table.view;
  const trump = view ? (view.game === "bura" ? view.trump : view.trumps) : null;
  hand.update({ cards: view?.hand || [], legal: table.legal || [], multi: view?.game === "bura", trump });
}

function renderActions(h) {
  const table = state.table;
  const legal = table.legal || [];
  const specs = [];
  if (legal.some((a) => a.startsWith("play "))) {
    const label = table.view?.game === "bura" ? t("table.play_selected") : t("table.play_card");
    specs.push({ id: "act-play", label, onClick: () => hand.play() });
  }
  for (const action of legal) {
    if (action.startsWith("play ") || action === "claim") continue;
    specs.push({ id: `act-${action.replace(/[^A-Za-z0-9]+/g, "-")}`, label: actionText(action),
                 onClick: () => h.act(action) });
  }
  // Claim comes last, apart, so it is never pressed by mistake when another button disappears.
  if (legal.includes("claim")) specs.push({ id: "act-claim", label: actionText("claim"), onClick: () => h.act("claim") });
  const container = $("actions");
  container.tabIndex = -1;
  syncButtons(container, specs, t("table.no_actions"));
}
