import type { ReactNode } from "react";
import { common } from "../../messages/ja";

interface ModalProps {
  id: string;
  title: string;
  body?: string | undefined;
  /** Closable modals have a close button; non-closable ones only their own actions. */
  closable: boolean;
  /** Open from the server (a result or an error) rather than by a control on the page. */
  openOnLoad?: boolean;
  children?: ReactNode;
}

/**
 * SPEC §2/§8 modal on a native <dialog>. One opened by a control is a popover (no script needed to open or
 * close it); one the server opens is rendered open with a dialog-method form to close it.
 */
export function Modal({ id, title, body, closable, openOnLoad = false, children }: ModalProps) {
  const titleId = `${id}-title`;
  const content = (
    <>
      {title ? (
        <h2 id={titleId} className="modal-title">
          {title}
        </h2>
      ) : null}
      <div className="modal-content">
        {body ? <p className="modal-body">{body}</p> : null}
        {children}
      </div>
    </>
  );
  if (openOnLoad) {
    return (
      <div className="modal-overlay">
        <dialog
          open
          id={id}
          className="modal"
          aria-modal="true"
          aria-labelledby={title ? titleId : undefined}
          aria-label={title ? undefined : common.close}
        >
          {content}
          {closable ? (
            <form method="dialog" className="modal-actions">
              <button type="submit" className="button button--secondary">
                {common.close}
              </button>
            </form>
          ) : null}
        </dialog>
      </div>
    );
  }
  return (
    <dialog
      id={id}
      popover={closable ? "auto" : "manual"}
      className="modal"
      aria-labelledby={title ? titleId : undefined}
    >
      {content}
      {closable ? (
        <div className="modal-actions">
          <button type="button" className="button button--secondary" popoverTarget={id} popoverTargetAction="hide">
            {common.close}
          </button>
        </div>
      ) : null}
    </dialog>
  );
}

/** A control that opens a popover modal without any script; it looks like a link unless it is a step of a form. */
export function ModalOpener({
  target,
  children,
  look = "link",
}: {
  target: string;
  children: ReactNode;
  look?: "link" | "button";
}) {
  return (
    <button
      type="button"
      className={look === "button" ? "button" : "link-button"}
      popoverTarget={target}
      popoverTargetAction="show"
    >
      {children}
    </button>
  );
}
