// The page's one voice (speech: the live regions or the browser's voice, and the game log beside the felt), its
// sounds and its connection to the room, shared by every module. app.js gives the connection the message
// router and the status handler before it connects.

import { Net } from "./net.js";
import { Sounds } from "./sound.js";
import { Speech } from "./speech.js";
import { state } from "./state.js";

const $ = (id) => document.getElementById(id);
export const speech = new Speech($("live-polite"), $("live-assertive"));
const LOG_SIZE = 200;
// The game's sentences, visible: a scrollable log beside the felt for sighted players (not a live region: the
// sentences are spoken once, by the live regions). It keeps what was said at the table, the last 200.
speech.onRecord = (text, channel) => {
  if (!state.table || channel === "chat") return; // the chat has its own log
  const log = $("game-log");
  const item = document.createElement("li");
  item.textContent = text;
  item.className = `log-${channel}`;
  log.append(item);
  while (log.childElementCount > LOG_SIZE) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
};
export const sounds = new Sounds();
export const net = new Net({ onMessage: () => {}, onStatus: () => {} });
