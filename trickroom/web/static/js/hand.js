// The hand: one listbox of cards grouped by suit (role="group" per suit), with a roving tabindex so focus sits on
// a card and the screen reader reads it: "queen of spades, 3 of 8, playable". Left/Right move one card, Up/Down
// jump to the previous/next suit, Home/End, Space selects several cards (Bura leads), Enter plays. Which cards are
// playable comes only from the server's legal actions.

import { cardName, suitTitle, t, tn } from "./i18n.js";

const SUIT_ORDER = ["S", "H", "D", "C"];
const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };

// The one order of a hand everywhere (the listbox, the H key): grouped by suit, spades, hearts, diamonds, clubs,
// each suit in the order the room dealt it.
export function handOrder(cards) {
  const order = [];
  for (const suit of SUIT_ORDER) for (const code of cards || []) if (code[1] === suit) order.push(code);
  return order;
}

export function rankLabel(code) {
  return code[0] === "T" ? "10" : code[0];
}

// A visual card (no name of its own: the caller gives the accessible text).
export function cardFace(code) {
  const face = document.createElement("span");
  face.className = `card-face suit-${code[1]}`;
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = rankLabel(code);
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = SUIT_SYMBOL[code[1]];
  face.append(rank, suit);
  face.setAttribute("aria-hidden", "true");
  return face;
}

export function playableCards(legal) {
  const playable = new Set();
  for (const action of legal || []) {
    const [verb, ...cards] = action.split(" ");
    if (verb === "play") for (const card of cards) playable.add(card);
  }
  return playable;
}

export class Hand {
  constructor(container, { onPlay }) {
    this.container = container;
    this.onPlay = onPlay;
    this.cards = [];
    this.playable = new Set();
    this.selected = new Set();
    this.multi = false;
    this.trump = null;
    this.active = 0;
    this.listbox = null;
  }

  update({ cards, legal, multi, trump }) {
    const order = handOrder(cards);
    const hadFocus = this.listbox !== null && this.listbox.contains(document.activeElement);
    const activeCode = this.cards[this.active];
    const changed = order.join() !== this.cards.join() || multi !== this.multi || trump !== this.trump;
    this.cards = order;
    this.multi = multi;
    this.trump = trump;
    this.playable = playableCards(legal);
    for (const code of [...this.selected]) if (!order.includes(code)) this.selected.delete(code);
    if (!this.playable.size) this.selected.clear();
    const kept = order.indexOf(activeCode);
    this.active = kept >= 0 ? kept : Math.min(this.active, Math.max(0, order.length - 1));
    if (changed) this.build();
    this.refresh();
    if (hadFocus) this.focusActive();
  }

  build() {
    this.container.replaceChildren();
    if (!this.cards.length) {
      this.listbox = null;
      const empty = document.createElement("p");
      empty.id = "hand-empty";
      empty.tabIndex = -1;
      empty.textContent = t("table.hand_empty");
      this.container.append(empty);
      return;
    }
    const listbox = document.createElement("div");
    listbox.id = "hand-list";
    listbox.className = "hand";
    listbox.setAttribute("role", "listbox");
    listbox.setAttribute("aria-orientation", "horizontal");
    if (this.multi) listbox.setAttribute("aria-multiselectable", "true");
    listbox.addEventListener("keydown", (event) => this.onKey(event));
    for (const suit of SUIT_ORDER) {
      const inSuit = this.cards.filter((code) => code[1] === suit);
      if (!inSuit.length) continue;
      const group = document.createElement("div");
      group.setAttribute("role", "group");
      group.className = "suit-group";
      const title = suit === this.trump ? `${suitTitle(suit)} (${t("table.trump").toLowerCase()})` : suitTitle(suit);
      group.setAttribute("aria-label", t("card.group", { suit: title, n: inSuit.length }));
      for (const code of inSuit) {
        const option = document.createElement("div");
        option.setAttribute("role", "option");
        option.className = "card";
        option.id = `card-${code}`;
        option.dataset.card = code;
        option.tabIndex = -1;
        // The name comes from this hidden text (the visible face is aria-hidden), so the name and what is
        // shown never disagree for speech recognition users.
        const name = document.createElement("span");
        name.className = "sr-only card-name";
        option.append(name, cardFace(code));
        option.addEventListener("click", () => this.onTap(code));
        option.addEventListener("dblclick", () => this.play(code));
        group.append(option);
      }
      listbox.append(group);
    }
    this.listbox = listbox;
    this.container.append(listbox);
  }

  refresh() {
    if (!this.listbox) return;
    const n = this.cards.length;
    this.listbox.setAttribute("aria-label", `${t("table.hand")}, ${tn("table.cards_count", n, { n })}`);
    this.cards.forEach((code, index) => {
      const option = this.listbox.querySelector(`#card-${code}`);
      const playable = this.playable.has(code);
      const parts = [cardName(code), t("card.position", { i: index + 1, n }),
                     t(playable ? "card.playable" : "card.unplayable")];
      option.querySelector(".card-name").textContent = parts.join(", ");
      option.classList.toggle("playable", playable);
      option.classList.toggle("selected", this.selected.has(code));
      if (this.multi) option.setAttribute("aria-selected", String(this.selected.has(code)));
      else option.removeAttribute("aria-selected");
      option.tabIndex = index === this.active ? 0 : -1;
    });
  }

  focus() {
    if (this.listbox) this.focusActive();
    else this.container.querySelector("#hand-empty")?.focus();
  }

  focusActive() {
    const code = this.cards[this.active];
    if (code) this.listbox.querySelector(`#card-${code}`)?.focus();
  }

  moveTo(index) {
    if (!this.cards.length) return;
    this.active = Math.max(0, Math.min(this.cards.length - 1, index));
    this.refresh();
    this.focusActive();
  }

  jumpSuit(step) {
    const suit = this.cards[this.active]?.[1];
    if (step > 0) {
      const next = this.cards.findIndex((code, i) => i > this.active && code[1] !== suit);
      this.moveTo(next >= 0 ? next : 0);
    } else {
      // The first card of the previous suit (or of the last suit, wrapping).
      const firstOfThis = this.cards.findIndex((code) => code[1] === suit);
      const target = firstOfThis > 0 ? this.cards[firstOfThis - 1][1] : this.cards[this.cards.length - 1][1];
      this.moveTo(this.cards.findIndex((code) => code[1] === target));
    }
  }

  toggle(code) {
    if (!this.multi) return;
    if (this.selected.has(code)) this.selected.delete(code);
    else this.selected.add(code);
    this.refresh();
  }

  onTap(code) {
    this.active = this.cards.indexOf(code);
    this.toggle(code);
    this.refresh();
    this.focusActive();
  }

  // The cards to play: the selection if any, else the focused card.
  chosen() {
    if (this.multi && this.selected.size) return this.cards.filter((code) => this.selected.has(code));
    const code = this.cards[this.active];
    return code ? [code] : [];
  }

  play(code) {
    const cards = code ? [code] : this.chosen();
    if (cards.length) this.onPlay(cards);
  }

  onKey(event) {
    if (event.altKey || event.metaKey) return;
    const key = event.key;
    let handled = true;
    if (key === "ArrowRight") this.moveTo(this.active + 1);
    else if (key === "ArrowLeft") this.moveTo(this.active - 1);
    else if (key === "ArrowDown") this.jumpSuit(1);
    else if (key === "ArrowUp") this.jumpSuit(-1);
    else if (key === "Home") this.moveTo(0);
    else if (key === "End") this.moveTo(this.cards.length - 1);
    else if (key === " ") this.toggle(this.cards[this.active]);
    else if (key === "Enter") this.play();
    else handled = false;
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  }
}
