import { whatIsIdModal } from "../messages";
import { Modal, ModalOpener } from "./Modal";
import { usePage } from "./PageContext";

const WHAT_IS_ID_MODAL_ID = "what-is-id-modal";

export function WhatIsIdLink() {
  const { brand } = usePage();
  return <ModalOpener target={WHAT_IS_ID_MODAL_ID}>{whatIsIdModal.link(brand.providerName)}</ModalOpener>;
}

export function WhatIsIdModal() {
  const { brand } = usePage();
  return (
    <Modal
      id={WHAT_IS_ID_MODAL_ID}
      title={whatIsIdModal.title(brand.providerName)}
      body={whatIsIdModal.body(brand.providerName)}
      closable
    />
  );
}
