// Answers to the information keys (S, T, C, H, P, R), one sentence each, from what the server showed this player.
// Nothing here computes a rule or a hidden quantity: Bura's running card points are read only from the view's
// my_points, which the server sends only with show_points on.

import { handOrder } from "./hand.js";
import { cardList, cardName, grouped, suitName, t, tn } from "./i18n.js";

export function seatName(table, seat) {
  const entry = table.info?.seats?.[seat];
  if (entry?.user) return entry.user.name;
  return t("room:bot.name", { number: seat + 1 });
}

// Mpourloto's teams as the listener knows them: "your team" and "the other team" to a player (never "team A"),
// "the team of Anna and Clara" to a spectator; the mpourloto catalog's words, as the room says them.
export function teamName(table, team) {
  const seats = table.info?.seats || [];
  const mine = seats[table.you?.seat]?.team;
  if (mine !== null && mine !== undefined) return t(mine === team ? "mpourloto:team.yours" : "mpourloto:team.other");
  const members = seats.map((entry, seat) => (entry.team === team ? seatName(table, seat) : null)).filter(Boolean);
  return t("mpourloto:team.of", { first: members[0] || "", second: members[1] || "" });
}

// The two teams, the listener's first.
function teamOrder(table) {
  const seats = table.info?.seats || [];
  return seats[table.you?.seat]?.team === 1 ? [1, 0] : [0, 1];
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
    const [first, second] = teamOrder(table);
    return t("info.scores_teams", { first: teamName(table, first), a: view.scores[first],
                                    second: teamName(table, second), b: view.scores[second], target: view.target });
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
  const said = grouped(plays.map((p) => `${seatName(table, p.seat)}: ${cardList(p.cards)}`));
  return t("info.trick", { plays: said });
}

export function handText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const hand = table.view.hand;
  if (!hand) return t("info.no_hand");
  if (!hand.length) return t("table.hand_empty");
  return tn("info.hand", hand.length, { n: hand.length, cards: cardList(handOrder(hand)) });
}

export function potText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const view = table.view;
  if (view.game === "mpourloto") {
    const cp = view.card_points || [0, 0];
    const mp = view.meld_points || [0, 0];
    const [first, second] = teamOrder(table);
    return t("info.team_points", { first: teamName(table, first), a: cp[first], ma: mp[first],
                                   second: teamName(table, second), b: cp[second], mb: mp[second] });
  }
  const parts = [];
  if (view.unit === "chips") parts.push(tn("info.pot", view.pot, { pot: view.pot }));
  else parts.push(t("info.no_pot", { list: view.scores.map((s, seat) => `${seatName(table, seat)} ${s}`).join(", ") }));
  if (typeof view.my_points === "number") parts.push(tn("info.my_points", view.my_points, { n: view.my_points }));
  return parts.join(" ");
}

export function stockText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const view = table.view;
  if (view.game === "bura") {
    return tn(view.stock_dead ? "info.stock_dead" : "info.stock", view.stock, { n: view.stock });
  }
  // Mpourloto: the server sends the cards still to be dealt (until the deal is completed).
  if (view.stock) return tn("info.to_deal", view.stock, { n: view.stock });
  return t("info.no_stock");
}

// Whole seconds left of this player's turn, or null when no timer runs for them.
export function secondsLeft(table) {
  if (typeof table.deadlineAt !== "number") return null;
  return Math.max(0, Math.round((table.deadlineAt - Date.now()) / 1000));
}

export function timeText(table) {
  const seconds = secondsLeft(table);
  if (seconds !== null && (table.to_act || []).includes(table.you?.seat)) {
    return tn("info.time_left", seconds, { n: seconds });
  }
  if (table.info?.timer) return tn("info.time_other", table.info.timer, { n: table.info.timer });
  return t("info.no_timer");
}

export { isYou };

// Shift+C: the last trick, who played what and who took it, with what the room said when it was taken (the
// points, in Mpourloto). Read from the view's last_trick and the last trick event the room sent.
export function lastTrickText(table) {
  const missing = noGame(table);
  if (missing) return missing;
  const view = table.view;
  const last = view.last_trick;
  const plays = view.game === "bura" ? (last?.plays || []).map((p) => ({ seat: p.seat, cards: p.cards }))
    : (last || []).map(([seat, card]) => ({ seat, cards: [card] }));
  if (!plays.length) return t("info.no_last_trick");
  const said = grouped(plays.map((p) => `${isYou(table, p.seat) ? t("info.you") : seatName(table, p.seat)}: ${cardList(p.cards)}`));
  const parts = [t("info.last_trick", { plays: said })];
  const taken = table.lastTrick;
  if (taken && typeof taken.winner === "number") {
    const winner = isYou(table, taken.winner) ? t("info.you_took") : t("info.took", { name: seatName(table, taken.winner) });
    parts.push(typeof taken.points === "number" ? tn("info.took_points", taken.points, { who: winner, n: taken.points })
      : `${winner}.`);
  }
  return parts.join(" ");
}
