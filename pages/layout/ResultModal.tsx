import { Modal } from "./Modal";

interface ResultModalProps {
  id: string;
  title: string;
  body?: string | undefined;
  /** The one way on: back to the app, the service top, or the next step of the flow. */
  href: string;
  label: string;
}

/** The server opens it after an action completed (SPEC §2/§4 success modals): not closable, one link onwards. */
export function ResultModal({ id, title, body, href, label }: ResultModalProps) {
  return (
    <Modal id={id} title={title} body={body || undefined} closable={false} openOnLoad>
      <div className="modal-actions">
        <a className="button" href={href}>
          {label}
        </a>
      </div>
    </Modal>
  );
}
