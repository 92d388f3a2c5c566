// Modal dialogs (<dialog> with showModal) that keep Tab inside and give focus back where it was on close.

const FOCUSABLE = "button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), " +
  "textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";

export function openDialog(dialog, { focus } = {}) {
  const returnTo = document.activeElement;
  dialog.returnTo = returnTo;
  if (!dialog.trapInstalled) {
    dialog.addEventListener("keydown", (event) => {
      if (event.key !== "Tab") return;
      const items = [...dialog.querySelectorAll(FOCUSABLE)].filter((el) => el.offsetParent !== null);
      if (!items.length) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    });
    dialog.addEventListener("close", () => {
      const target = dialog.returnTo;
      dialog.returnTo = null;
      // The browser gives focus back as the dialog closes; this event comes later, a task that a busy page runs
      // after the keys pressed meanwhile (Escape, E, then letters for the chat). Focus moves here only if nothing
      // holds it, so a player who has gone on never loses a letter to it.
      const current = document.activeElement;
      if (current && current !== document.body && !dialog.contains(current)) return;
      if (target && target.isConnected && target.offsetParent !== null) target.focus();
      else document.querySelector("main h2:not([hidden])")?.focus();
    });
    dialog.trapInstalled = true;
  }
  if (!dialog.open) dialog.showModal();
  const first = focus || dialog.querySelector("[autofocus]") || dialog.querySelector(FOCUSABLE);
  first?.focus();
}

export function closeDialog(dialog) {
  if (dialog.open) dialog.close();
}

export function anyDialogOpen() {
  return [...document.querySelectorAll("dialog")].some((d) => d.open);
}
