// Answers to the information keys (S, T, C, H, P, R), one sentence each, from what the server showed this player.
// Nothing here computes a rule or a hidden quantity: Bura's running card points are read only from the view's
// my_points, which the server sends only with show_points on.

import { cardList, cardName, suitName, t } from "./i18n.js";

export function seatName(table, seat) {
  const entry = table.info?.seats?.[seat];
  if (entry?.user) return entry.user.name;
  return t("table.bot", { n: seat + 1 });
}

function isYou(table, seat) {
  return table.you?.seat === seat;
}

function noGame(table) {
  return !table.view ? t("info.no_game") : null;
}

export function trickPlays(table) {
  const view = table.view;
  if (!view) return [];
  if (view.game === "bura") return (view.trick || []).map((p) => ({ seat: p.seat, cards: p.cards }));
  return (view.trick || []).map(([seat, card]) => ({ seat, cards: [card] }));
}

export function scoresText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const view = table.view;
  if (view.game === "mpourloto") {
    return t("info.scores_teams", { a: view.scores[0], b: view.scores[1], target: view.target });
  }
  const list = view.scores.map((score, seat) => `${seatName(table, seat)} ${score}`).join(", ");
  return t("info.scores_seats", { unit: t(`unit.${view.unit}`), list });
}

export function turnText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const view = table.view;
  const parts = [];
  const toAct = table.to_act || [];
  if (view.is_over || view.phase === "over") parts.push(t("info.over"));
  else if (toAct.includes(table.you?.seat) && table.legal?.some((a) => a !== "claim")) parts.push(t("info.your_turn"));
  else if (toAct.length) {
    parts.push(t("info.waiting_for", { names: toAct.map((s) => seatName(table, s)).join(", ") }));
  }
  if (view.game === "bura") {
    parts.push(t("info.trumps", { suit: suitName(view.trump) }));
    if (view.trump_card) parts.push(t("info.face_up", { card: cardName(view.trump_card) }));
  } else if (view.trumps) {
    parts.push(t("info.trumps", { suit: suitName(view.trumps) }));
  } else if (view.face_up) {
    parts.push(t("info.proposed", { suit: suitName(view.face_up[1]), card: cardName(view.face_up) }));
  } else {
    parts.push(t("info.no_trumps_yet"));
  }
  return parts.join(" ");
}

export function trickText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const plays = trickPlays(table);
  if (!plays.length) return t("table.trick_empty");
  const said = plays.map((p) => `${seatName(table, p.seat)}: ${cardList(p.cards)}`).join("; ");
  return t("info.trick", { plays: said });
}

export function handText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const hand = table.view.hand;
  if (!hand) return t("info.no_hand");
  if (!hand.length) return t("table.hand_empty");
  return t("info.hand", { n: hand.length, cards: cardList(hand) });
}

export function potText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const view = table.view;
  if (view.game === "mpourloto") {
    const cp = view.card_points || [0, 0];
    const mp = view.meld_points || [0, 0];
    return t("info.team_points", { a: cp[0], ma: mp[0], b: cp[1], mb: mp[1] });
  }
  const parts = [];
  if (view.unit === "chips") parts.push(t("info.pot", { pot: view.pot }));
  else parts.push(t("info.no_pot", { list: view.scores.map((s, seat) => `${seatName(table, seat)} ${s}`).join(", ") }));
  if (typeof view.my_points === "number") parts.push(t("info.my_points", { n: view.my_points }));
  return parts.join(" ");
}

export function stockText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const view = table.view;
  if (view.game === "bura") {
    return view.stock_dead ? t("info.stock_dead", { n: view.stock }) : t("info.stock", { n: view.stock });
  }
  const held = (view.hand_sizes || []).reduce((a, b) => a + b, 0);
  const dealing = ["bidding1", "bidding2", "exchange"].includes(view.phase);
  // 32 cards: during bidding and the exchange the undealt ones are the rest minus the face-up card.
  if (dealing) return t("info.to_deal", { n: 32 - held - (view.face_up ? 1 : 0) });
  return t("info.no_stock");
}

// Whole seconds left of this player's turn, or null when no timer runs for them.
export function secondsLeft(table) {
  if (typeof table.deadlineAt !== "number") return null;
  return Math.max(0, Math.round((table.deadlineAt - Date.now()) / 1000));
}

export function timeText(table) {
  const seconds = secondsLeft(table);
  if (seconds !== null && (table.to_act || []).includes(table.you?.seat)) return t("info.time_left", { n: seconds });
  if (table.info?.timer) return t("info.time_other", { n: table.info.timer });
  return t("info.no_timer");
}

export { isYou };
