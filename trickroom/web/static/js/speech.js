// Speech: every sentence goes through here. Two live regions exist from page load (polite and assertive); each
// sentence is appended as its own new node, so the same sentence twice is still read and nothing overwrites what
// is being read. Sentences that arrive together are flushed together, in order; an urgent one (your turn, an
// error, a claim against you: the room's urgency) goes to the assertive region with the polite sentences that came
// just before it joined in front, so it never silences the game sentence it answers; the rest stay polite. The other mode speaks with the browser's own voice (speechSynthesis).

export const CHANNELS = ["game", "chat", "system"];
const KEEP_NODES = 40; // older nodes are removed (removals are not announced: aria-relevant="additions")
const FLUSH_DELAY_MS = 60;
const HISTORY_SIZE = 500;

export class Speech {
  constructor(polite, assertive) {
    this.polite = polite;
    this.assertive = assertive;
    this.mode = "live"; // "live" (screen reader) or "voice" (speechSynthesis)
    this.verbosity = { game: "full", chat: "full", system: "full" };
    this.history = []; // {text, channel, time}
    this.cursor = null; // index into history while reviewing; null: at the live end
    this.pending = [];
    this.timer = null;
    this.voiceLang = "en-US";
    this.onRecord = null; // (text, channel): the visible log beside the felt (services.js)
    this.historyChannel = null; // the history read by channel ("game", "chat"); null: everything
  }

  // The history read by channel, like the buffers of other rooms: everything, the game, the chat.
  nextHistoryChannel() {
    const order = [null, "game", "chat"];
    this.historyChannel = order[(order.indexOf(this.historyChannel) + 1) % order.length];
    this.cursor = null;
    return { channel: this.historyChannel, count: this.shown().length };
  }

  shown() {
    const found = [];
    this.history.forEach((item, index) => {
      if (!this.historyChannel || item.channel === this.historyChannel) found.push(index);
    });
    return found;
  }

  // Decide whether a sentence is spoken, record it, and queue it.
  // essential: spoken in "brief" mode too. always: spoken even when the channel is off (errors). speak: false
  // records it in the history only (what was missed while away).
  say(text, { channel = "system", assertive = false, essential = true, always = false, record = true,
              speak = true } = {}) {
    if (!text) return false;
    if (record) {
      this.history.push({ text, channel });
      if (this.history.length > HISTORY_SIZE) this.history.shift();
      this.cursor = null;
      if (this.onRecord) this.onRecord(text, channel);
    }
    if (!speak) return false;
    const level = this.verbosity[channel] || "full";
    const spoken = always || level === "full" || (level === "brief" && essential);
    if (!spoken) return false;
    this.pending.push({ text, assertive });
    if (this.timer === null) this.timer = setTimeout(() => this.flush(), FLUSH_DELAY_MS);
    return true;
  }

  flush() {
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (!batch.length) return;
    if (this.mode === "voice" && "speechSynthesis" in window) {
      for (const item of batch) this.speakVoice(item.text);
      return;
    }
    // Only what asks the listener to act is assertive. The polite sentences that came just before the first
    // urgent one are said with it, as one sentence ("Bot 2 plays the seven of spades. Your turn."), so the urgent
    // one never cuts off the move it answers; the rest go to their own regions.
    const first = batch.findIndex((item) => item.assertive);
    const items = first < 0 ? batch
      : [{ text: batch.slice(0, first + 1).map((item) => item.text).join(" "), assertive: true }, ...batch.slice(first + 1)];
    for (const item of items) {
      const node = document.createElement("p");
      node.textContent = item.text;
      (item.assertive ? this.assertive : this.polite).appendChild(node);
    }
    for (const region of [this.polite, this.assertive]) {
      while (region.childElementCount > KEEP_NODES) region.firstElementChild.remove();
    }
  }

  speakVoice(text, interrupt = false) {
    const synth = window.speechSynthesis;
    if (interrupt) synth.cancel();
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = this.voiceLang;
    synth.speak(utterance);
  }

  // Reviewing: speak now, interrupting, without recording again.
  review(text) {
    if (this.mode === "voice" && "speechSynthesis" in window) {
      this.speakVoice(text, true);
      return;
    }
    this.pending.push({ text, assertive: true });
    if (this.timer === null) this.timer = setTimeout(() => this.flush(), FLUSH_DELAY_MS);
  }

  repeatLast(emptyText) {
    const last = this.history[this.history.length - 1];
    this.review(last ? last.text : emptyText);
  }

  back(startText) {
    const shown = this.shown();
    if (!shown.length) return this.review(startText);
    if (this.cursor === null) this.cursor = this.history.length;
    const previous = shown.filter((index) => index < this.cursor).pop();
    if (previous === undefined) {
      this.cursor = shown[0];
      return this.review(`${startText} ${this.history[shown[0]].text}`);
    }
    this.cursor = previous;
    this.review(this.history[previous].text);
  }

  forward(endText) {
    const next = this.cursor === null ? undefined : this.shown().find((index) => index > this.cursor);
    if (next === undefined) {
      this.cursor = null;
      return this.review(endText);
    }
    this.cursor = next;
    this.review(this.history[next].text);
  }
}
