import type { ReactNode } from "react";
import { BackButton } from "../../islands/hosts";
import { common } from "../../messages/ja";
import { type ModalKey, type ModalRecord, modals, modalText } from "../../messages/modals";
import { Modal, ModalOpener } from "./Modal";
import { serviceTopUrl, usePage } from "./PageContext";

interface CatalogueModalProps {
  name: ModalKey;
  /** The element id; a control on the page opens it by this id unless the server opens it (`open`). */
  id?: string;
  open?: boolean;
  /** Where a `next` modal leads, or a link out that replaces the usual one. */
  href?: string | undefined;
  /** Content beyond the record's body (the brand's support contact). */
  children?: ReactNode;
  /** The page's own actions (a form to submit, a link to start over). */
  actions?: ReactNode;
}

function useModalText(name: ModalKey) {
  const page = usePage();
  return modalText(name, {
    providerName: page.brand.providerName,
    earlierServiceName: page.earlierServiceName,
    senderDomain: page.mailSenderDomain,
  });
}

/** The way on that a server-opened modal offers (its record's `after`). */
function AfterAction({ record, href }: { record: ModalRecord; href: string | undefined }) {
  const page = usePage();
  switch (record.after) {
    case "back":
      return <BackButton fallbackHref={serviceTopUrl(page)} label={common.back} />;
    case "serviceTop":
    case "app":
    case "next": {
      const fallback = record.after === "next" ? undefined : serviceTopUrl(page);
      const label =
        record.actionLabel ??
        { serviceTop: common.backToServiceTop, app: common.backToApp, next: common.next }[record.after];
      const target = href ?? fallback;
      return target ? (
        <a className="button" href={target}>
          {label}
        </a>
      ) : null;
    }
    default:
      return null;
  }
}

/** A modal of the catalogue (messages/modals.ts): its words, closability and way on come from its record. */
export function CatalogueModal({
  name,
  id = `${name}-modal`,
  open = false,
  href,
  children,
  actions,
}: CatalogueModalProps) {
  const record: ModalRecord = modals[name];
  const text = useModalText(name);
  const action = open ? <AfterAction record={record} href={href} /> : null;
  return (
    <Modal
      id={id}
      title={text.title}
      body={text.body}
      closable={record.closable}
      openOnLoad={open}
      alert={record.status >= 400}
    >
      {text.list.length ? (
        <ul className="notes">
          {text.list.map((point) => (
            <li key={point}>{point}</li>
          ))}
        </ul>
      ) : null}
      {children}
      {actions || action ? (
        <div className="modal-actions">
          {actions}
          {action}
        </div>
      ) : null}
    </Modal>
  );
}

/** A control that opens a catalogue modal rendered on the same page with the same `name`; by default its title. */
export function CatalogueModalOpener({
  name,
  look,
  children,
}: {
  name: ModalKey;
  look?: "link" | "button";
  children?: ReactNode;
}) {
  const text = useModalText(name);
  return (
    <ModalOpener target={`${name}-modal`} look={look}>
      {children ?? text.title}
    </ModalOpener>
  );
}

/** The modal the worker opened for this response (an outcome of product §8), if any. */
export function ActiveModal() {
  const { modal } = usePage();
  return modal ? <CatalogueModal name={modal.key} id="message-modal" open href={modal.href} /> : null;
}
