import { common, supportContact } from "../../messages/ja";
import { CatalogueModal, CatalogueModalOpener } from "./CatalogueModal";
import { usePage } from "./PageContext";

export function SupportLink() {
  return <CatalogueModalOpener name="support">{common.help}</CatalogueModalOpener>;
}

/** The brand's support contact; advisor-managed brands name only the advisor (product §2). */
export function SupportModal({ variant = "default" }: { variant?: "default" | "sms" | "totp" }) {
  const { brand } = usePage();
  const support = brand.support;
  const messageHtml =
    (variant === "sms" && support.smsMessageHtml) ||
    (variant === "totp" && support.totpMessageHtml) ||
    support.defaultMessageHtml;
  return (
    <CatalogueModal name="support">
      {support.advisorManaged ? (
        <p>{supportContact.advisorManaged}</p>
      ) : (
        <>
          {/* biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised with DOMPurify when the brand data was built (themes/build.ts) */}
          {messageHtml ? <div className="support-message" dangerouslySetInnerHTML={{ __html: messageHtml }} /> : null}
          <dl className="support-contact">
            <dt className="support-name">{support.callCenterName}</dt>
            {support.tel ? (
              <dd>
                <a href={`tel:${support.tel.replace(/[^0-9+]/g, "")}`}>{supportContact.phone(support.tel)}</a>
              </dd>
            ) : null}
            {support.email ? (
              <dd>
                {supportContact.emailLabel}
                <a href={`mailto:${support.email}`}>{support.email}</a>
              </dd>
            ) : null}
            <dd>{supportContact.businessHour(support.businessHour)}</dd>
          </dl>
        </>
      )}
    </CatalogueModal>
  );
}
