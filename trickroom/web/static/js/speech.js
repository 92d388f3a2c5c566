// Speech: every sentence goes through here. Two live regions exist from page load (polite and assertive); each
// sentence is appended as its own new node, so the same sentence twice is still read and nothing overwrites what
// is being read. Sentences that arrive together are flushed together, in order; if any of them is urgent (your
// turn, an error) the whole batch goes to the assertive region, so an urgent sentence never silences the game
// sentence that came just before it. The other mode speaks with the browser's own voice (speechSynthesis).

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
  }

  // Decide whether a sentence is spoken, record it, and queue it.
  // essential: spoken in "brief" mode too. always: spoken even when the channel is off (errors).
  say(text, { channel = "system", assertive = false, essential = true, always = false, record = true } = {}) {
    if (!text) return false;
    if (record) {
      this.history.push({ text, channel });
      if (this.history.length > HISTORY_SIZE) this.history.shift();
      this.cursor = null;
    }
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
    const urgent = batch.some((item) => item.assertive);
    const region = urgent ? this.assertive : this.polite;
    for (const item of batch) {
      const node = document.createElement("p");
      node.textContent = item.text;
      region.appendChild(node);
    }
    while (region.childElementCount > KEEP_NODES) region.firstElementChild.remove();
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
    if (!this.history.length) return this.review(startText);
    if (this.cursor === null) this.cursor = this.history.length;
    if (this.cursor <= 0) {
      this.cursor = 0;
      return this.review(`${startText} ${this.history[0].text}`);
    }
    this.cursor -= 1;
    this.review(this.history[this.cursor].text);
  }

  forward(endText) {
    if (this.cursor === null || this.cursor >= this.history.length - 1) {
      this.cursor = null;
      return this.review(endText);
    }
    this.cursor += 1;
    this.review(this.history[this.cursor].text);
  }
}
