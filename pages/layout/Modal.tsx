import type { ReactNode } from "react";
import { ServerModal } from "../../islands/hosts";
import { common } from "../../messages/ja";

interface ModalProps {
  id: string;
  title: string;
  body?: string | undefined;
  /** Closable modals have a close button; non-closable ones only their own actions. */
  closable: boolean;
  /** Open from the server (a result or an error) rather than by a control on the page. */
  openOnLoad?: boolean;
  /** An error the user must take in (an `alertdialog`), rather than a result. */
  alert?: boolean;
  children?: ReactNode;
}

/**
 * product §2/§8 modal on a native <dialog>. One opened by a control is a popover (no script needed to open or
 * close it), or the URL's target where the engine has no popover (ModalOpener); one the server opens is rendered
 * open with a dialog-method form to close it.
 */
export function Modal({ id, title, body, closable, openOnLoad = false, alert = false, children }: ModalProps) {
  const titleId = `${id}-title`;
  const bodyId = `${id}-body`;
  // A modal the page opens as it loads takes the focus there (`autofocus`), so that a screen reader starts with it:
  // its heading, made focusable, or the dialog itself when it has none.
  const focusHere = openOnLoad ? { autoFocus: true, tabIndex: -1 } : {};
  const content = (
    <>
      {title ? (
        <h2 id={titleId} className="modal-title" {...focusHere}>
          {title}
        </h2>
      ) : null}
      <div className="modal-content">
        {body ? (
          <p id={bodyId} className="modal-body">
            {body}
          </p>
        ) : null}
        {children}
      </div>
    </>
  );
  if (openOnLoad) {
    // Open in the markup, it is not modal: `aria-modal` would be untrue until the ServerModal island makes it so.
    return (
      <div className="modal-overlay">
        <dialog
          open
          id={id}
          className="modal"
          role={alert ? "alertdialog" : undefined}
          aria-labelledby={title ? titleId : undefined}
          aria-label={title ? undefined : common.close}
          aria-describedby={body ? bodyId : undefined}
          {...(title ? {} : focusHere)}
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
        <ServerModal id={id} closable={closable} />
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
          <ModalCloser target={id}>{common.close}</ModalCloser>
        </div>
      ) : null}
    </dialog>
  );
}

const openerId = (target: string) => `${target}-opener`;

/**
 * A control that opens a popover modal without any script; it looks like a link unless it is a step of a form.
 * Beside it, a link to the modal for engines without the Popover API (Safari < 17, docs/browsers.md): site.css
 * shows one of the two and takes the other out of the page and the accessibility tree (`display:none`), and opens
 * the linked modal as the URL's `:target`. One opener per modal on a page: the close link returns to its id.
 */
export function ModalOpener({
  target,
  children,
  look = "link",
}: {
  target: string;
  children: ReactNode;
  look?: "link" | "button";
}) {
  const className = look === "button" ? "button" : "link-button";
  return (
    <>
      <button type="button" className={className} popoverTarget={target} popoverTargetAction="show">
        {children}
      </button>
      <a id={openerId(target)} className={`${className} modal-fallback`} href={`#${target}`}>
        {children}
      </a>
    </>
  );
}

/**
 * Closes a popover modal: the popover's hide button, and for engines without popover (see ModalOpener) a link that
 * ends the modal's `:target` by going back to its opener, where the focus was. A modal only script opens (the SMS
 * warning) has no opener: its link then names no element, so the page stays where it is.
 */
export function ModalCloser({ target, children }: { target: string; children: ReactNode }) {
  return (
    <>
      <button type="button" className="button button--secondary" popoverTarget={target} popoverTargetAction="hide">
        {children}
      </button>
      <a className="button button--secondary modal-fallback" href={`#${openerId(target)}`}>
        {children}
      </a>
    </>
  );
}
