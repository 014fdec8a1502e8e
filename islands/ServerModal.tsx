import { useEffect } from "react";

export interface ServerModalProps {
  /** The open `<dialog>` the server rendered (pages/layout/Modal.tsx). */
  id: string;
  /** Escape and the close button close it; otherwise only its own actions lead on. */
  closable: boolean;
}

/** Where the focus goes once the modal closes: the field the error is about, an empty field, or the form's button. */
function returnTarget(): HTMLElement | null {
  const fields = [...document.querySelectorAll<HTMLInputElement>("input.field-input:not([readonly])")];
  return (
    fields.find((field) => field.getAttribute("aria-invalid") === "true") ??
    fields.find((field) => field.value === "") ??
    document.querySelector<HTMLButtonElement>('form[method="post"] button[type="submit"]:enabled')
  );
}

/**
 * A modal the server opened (a result or an error) is open without script, and not modal: its heading takes the focus
 * (`autofocus`), and the page behind still takes Tab. With script it becomes the true modal it says it is: the page
 * behind inert, Escape closing a closable one, and the focus back on the form when it closes. Renders nothing.
 */
export default function ServerModal({ id, closable }: ServerModalProps) {
  useEffect(() => {
    const dialog = document.getElementById(id);
    if (!(dialog instanceof HTMLDialogElement) || !dialog.open || typeof dialog.showModal !== "function") return;
    // A control in the dialog the user reached before this ran keeps the focus.
    const focused = dialog.contains(document.activeElement) ? (document.activeElement as HTMLElement) : null;
    dialog.close();
    dialog.showModal();
    dialog.setAttribute("aria-modal", "true");
    focused?.focus();
    const listening = new AbortController();
    const { signal } = listening;
    dialog.addEventListener(
      "cancel",
      (event) => {
        if (!closable) event.preventDefault();
      },
      { signal },
    );
    dialog.addEventListener(
      "close",
      () => {
        // The close() above queued a close event of its own, which comes once the dialog is open again.
        if (dialog.open) return;
        // An engine may close a modal on a second Escape however its cancel was answered: one that cannot be closed
        // opens again.
        if (!closable) return dialog.showModal();
        dialog.removeAttribute("aria-modal");
        returnTarget()?.focus();
      },
      { signal },
    );
    return () => listening.abort();
  }, [id, closable]);
  return null;
}
