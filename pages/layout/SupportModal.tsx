import { common, supportModal } from "../messages";
import { Modal, ModalOpener } from "./Modal";
import { usePage } from "./PageContext";

const SUPPORT_MODAL_ID = "support-modal";

export function SupportLink() {
  return <ModalOpener target={SUPPORT_MODAL_ID}>{common.help}</ModalOpener>;
}

/** The brand's support contact; advisor-managed services name only the advisor (SPEC §2). */
export function SupportModal({ variant = "default" }: { variant?: "default" | "sms" | "totp" }) {
  const { brand } = usePage();
  const support = brand.support;
  const messageHtml =
    (variant === "sms" && support.smsMessageHtml) ||
    (variant === "totp" && support.totpMessageHtml) ||
    support.defaultMessageHtml;
  return (
    <Modal id={SUPPORT_MODAL_ID} title={supportModal.title} closable>
      {support.advisorManaged ? (
        <p>{supportModal.advisorManaged}</p>
      ) : (
        <>
          {/* biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised with DOMPurify when the brand data was built (themes/build.ts) */}
          {messageHtml ? <div className="support-message" dangerouslySetInnerHTML={{ __html: messageHtml }} /> : null}
          <dl className="support-contact">
            <dt className="support-name">{support.callCenterName}</dt>
            {support.tel ? (
              <dd>
                <a href={`tel:${support.tel.replace(/[^0-9+]/g, "")}`}>{supportModal.phone(support.tel)}</a>
              </dd>
            ) : null}
            {support.email ? (
              <dd>
                {supportModal.emailLabel}
                <a href={`mailto:${support.email}`}>{support.email}</a>
              </dd>
            ) : null}
            <dd>{supportModal.businessHour(support.businessHour)}</dd>
          </dl>
        </>
      )}
    </Modal>
  );
}
