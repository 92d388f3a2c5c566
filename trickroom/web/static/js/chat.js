// Chat: the lobby's and the table's chat logs and their fields, and private messages.

import { net, sounds, speech } from "./services.js";
import { newId, state } from "./state.js";
import { sendTable } from "./table_actions.js";
import { quiet, sayFrom } from "./table_messages.js";

const $ = (id) => document.getElementById(id);

function addChat(listId, text) {
  const list = $(listId);
  const li = document.createElement("li");
  li.textContent = text;
  list.append(li);
  while (list.childElementCount > 200) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

export function focusChat() {
  const input = state.screen === "table" ? $("table-chat-input") : $("lobby-chat-input");
  input?.focus();
}

// The three chat forms: the lobby's, a private message, the table's.
export function wireChat() {
  $("lobby-chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = $("lobby-chat-input").value.trim();
    if (message && net.send({ type: "chat", message, id: newId() })) $("lobby-chat-input").value = "";
  });
  $("private-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = $("private-input").value.trim();
    // A busy room's lobby lists nobody: the name typed (docs/web.md) goes before the list's choice.
    const typed = $("private-name").hidden ? "" : $("private-name").value.trim();
    const to = typed || $("private-to").value;
    if (message && to && net.send({ type: "private", to, message, id: newId() })) $("private-input").value = "";
  });
  $("table-chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const message = $("table-chat-input").value.trim();
    if (message && sendTable({ type: "chat", message })) $("table-chat-input").value = "";
  });
}

export const chatHandlers = {
  chat(m) {
    addChat(m.table ? "table-chat-log" : "lobby-chat-log", m.text);
    if (!quiet(m)) sounds.play("chat");
    sayFrom(m, { channel: "chat", essential: Boolean(m.table) });
  },
  private(m) {
    addChat("lobby-chat-log", m.text);
    sounds.play("chat");
    speech.say(m.text, { channel: "chat" });
  },
};
