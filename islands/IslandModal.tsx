import type { ReactNode } from "react";

interface IslandModalProps {
  /** Names the dialog's marker attribute (`data-{name}`) and its title's and body's ids. */
  name: string;
  /** The catalogue record's words (messages/modals.ts). */
  modal: { title: string; body: string };
  /** Escape closes a modal that has it; a modal without it cannot be closed. */
  onClose?: () => void;
  /** Runs as the modal opens, before the browser paints it and before it takes the focus. */
  onOpen?: (dialog: HTMLDialogElement) => void;
  /** What follows the body: the modal's actions, in their `modal-actions` box. */
  children?: ReactNode;
}

/**
 * The markup of pages/layout/Modal.tsx's open modal, for an island that opens one in the browser: an overlay and a
 * modal `<dialog>` (`showModal()`: above a modal the server opened, the page behind inert) named by its title and
 * described by its body, which takes the focus as it opens. The island renders it to open it and stops rendering it
 * to close it.
 */
export function IslandModal({ name, modal, onClose, onOpen, children }: IslandModalProps) {
  return (
    <div className="modal-overlay">
      <dialog
        // React calls it as the dialog mounts, before paint (again only if the island re-rendered an open modal, which
        // neither does: each renders it once and unmounts it to close it). Smaller than a ref and a layout effect.
        ref={(dialog) => {
          if (!dialog || dialog.open) return;
          onOpen?.(dialog);
          // An engine without showModal() (none the site supports; a test's DOM) gets an open, non-modal dialog.
          if (typeof dialog.showModal === "function") {
            dialog.showModal();
            dialog.setAttribute("aria-modal", "true");
          } else dialog.setAttribute("open", "");
          dialog.focus();
        }}
        className="modal"
        aria-labelledby={`${name}-title`}
        aria-describedby={`${name}-body`}
        tabIndex={-1}
        {...{ [`data-${name}`]: "" }}
        onCancel={(event) => {
          event.preventDefault();
          onClose?.();
        }}
        onKeyDown={(event) => {
          if (event.key === "Escape") onClose?.();
        }}
      >
        <h2 id={`${name}-title`} className="modal-title">
          {modal.title}
        </h2>
        <div className="modal-content">
          <p id={`${name}-body`} className="modal-body">
            {modal.body}
          </p>
        </div>
        {children}
      </dialog>
    </div>
  );
}
