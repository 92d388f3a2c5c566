// The statistics view (S in the lobby): the signed-in player's games played and won and rating, one sentence per
// game, built here from the room's "stats" reply (it has no "text") and both shown in a dialog and spoken.
// Guests keep no statistics: they hear that an account is needed, without asking the room.

import { openDialog } from "./dialog.js";
import { lang, t } from "./i18n.js";
import { state } from "./state.js";

const $ = (id) => document.getElementById(id);

function gameTitle(name) {
  const title = t(`${name}:${name}.title`);
  return title === `${name}:${name}.title` ? name : title;
}

function formatRating(value) {
  return new Intl.NumberFormat(lang(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);
}

// One sentence per game, in the order of the room's game list: "Bura: 12 played, 7 won, rating 23.4."
export function statsSentences(games) {
  const known = (state.hello?.games || []).map((g) => g.name);
  const names = Object.keys(games || {}).sort((a, b) => {
    const ia = known.indexOf(a);
    const ib = known.indexOf(b);
    return (ia < 0 ? known.length : ia) - (ib < 0 ? known.length : ib) || a.localeCompare(b);
  });
  const lines = names.map((name) => t("stats.line", {
    game: gameTitle(name), played: games[name].played, won: games[name].won,
    rating: formatRating(games[name].rating),
  }));
  return lines.length ? lines : [t("stats.none")];
}

function show(lines) {
  const dialog = $("stats-dialog");
  if (!dialog.wired) {
    $("stats-form").addEventListener("submit", (event) => {
      event.preventDefault();
      dialog.close();
    });
    dialog.wired = true;
  }
  $("stats-title").textContent = t("stats.title");
  $("stats-list").replaceChildren(...lines.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
  openDialog(dialog);
}

// Ask the room (accounts) or answer at once (guests). `send` returns false when offline.
export function requestStats({ send, say, newId }) {
  if (!state.user || state.user.guest) {
    const line = t("stats.guest");
    show([line]);
    say(line);
    return;
  }
  const id = newId();
  if (!send({ type: "stats", id })) {
    say(t("speech.offline"));
    return;
  }
  state.pendingStats = id;
}

// The room's reply: shown and spoken only when it answers this view's own request.
export function onStats(message, { say }) {
  if (message.re === undefined || message.re !== state.pendingStats) return;
  state.pendingStats = null;
  const lines = statsSentences(message.games);
  show(lines);
  for (const line of lines) say(line);
}
