// Short sounds made in code with Web Audio: no files to ship. Each comes with a sentence, never instead of one.
// The AudioContext starts on the first key press or touch (browsers refuse sound before a gesture).

const TONES = {
  // [frequency Hz, start s, length s, wave, gain]
  turn: [[660, 0, 0.12, "sine", 0.5], [880, 0.13, 0.18, "sine", 0.5]],
  card: [[220, 0, 0.05, "triangle", 0.6], [180, 0.03, 0.05, "square", 0.12]],
  trick: [[523, 0, 0.1, "triangle", 0.4], [659, 0.08, 0.1, "triangle", 0.4], [784, 0.16, 0.16, "triangle", 0.4]],
  combo: [[392, 0, 0.12, "sawtooth", 0.2], [523, 0.12, 0.12, "sawtooth", 0.2], [784, 0.24, 0.3, "sawtooth", 0.22]],
  claim: [[880, 0, 0.1, "square", 0.2], [660, 0.12, 0.1, "square", 0.2], [440, 0.24, 0.25, "square", 0.2]],
  timer: [[1000, 0, 0.08, "square", 0.25], [1000, 0.2, 0.08, "square", 0.25], [1000, 0.4, 0.08, "square", 0.25]],
  chat: [[1200, 0, 0.06, "sine", 0.3], [1500, 0.07, 0.06, "sine", 0.25]],
  join: [[440, 0, 0.08, "sine", 0.35], [587, 0.09, 0.12, "sine", 0.35]],
  leave: [[587, 0, 0.08, "sine", 0.35], [440, 0.09, 0.12, "sine", 0.35]],
  error: [[200, 0, 0.15, "sawtooth", 0.25]],
};

export class Sounds {
  constructor() {
    this.context = null;
    this.enabled = true;
    this.volume = 0.6; // 0..1
  }

  unlock() {
    if (this.context) {
      if (this.context.state === "suspended") this.context.resume().catch(() => {});
      return;
    }
    const Context = window.AudioContext || window.webkitAudioContext;
    if (Context) this.context = new Context();
  }

  play(name) {
    if (!this.enabled || this.volume <= 0 || !this.context || !TONES[name]) return;
    const ctx = this.context;
    const now = ctx.currentTime;
    for (const [frequency, start, length, wave, gain] of TONES[name]) {
      const osc = ctx.createOscillator();
      const amp = ctx.createGain();
      osc.type = wave;
      osc.frequency.value = frequency;
      const peak = gain * this.volume;
      amp.gain.setValueAtTime(0.0001, now + start);
      amp.gain.exponentialRampToValueAtTime(peak, now + start + 0.01);
      amp.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(amp).connect(ctx.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.02);
    }
  }
}
