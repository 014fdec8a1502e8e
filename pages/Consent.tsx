import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { usePage } from "./layout/PageContext";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";
import { type ModalKey, screens } from "./messages";

export interface ConsentProps {
  clientId?: string | undefined;
  modal?: ModalKey | undefined;
}

/** SPEC §2 Consent: the partner receives the e-mail address and the balance information held by the provider. */
export function Consent({ clientId = "", modal }: ConsentProps) {
  const { brand } = usePage();
  const text = screens.consent;
  return (
    <Card
      title={text.title}
      links={
        <>
          <ServiceTopLink label={text.decline} />
          <SupportLink />
        </>
      }
      modals={modal ? <MessageModal message={modal} /> : null}
    >
      <p className="lead">{text.lead(brand.partnerName ?? brand.displayName, brand.providerName)}</p>
      <h2 className="section-title">{text.dataHeading}</h2>
      <ul className="data-list">
        <li>{text.dataEmail}</li>
        <li>{text.dataBalance}</li>
      </ul>
      <p>{text.confirm}</p>
      <form method="post" action={`/${brand.id}/consent`}>
        {/* The consent challenge and scope stay in the sealed consent cookie, never in the page. */}
        <input type="hidden" name="client_id" value={clientId} />
        <button type="submit" className="button">
          {text.agree}
        </button>
      </form>
    </Card>
  );
}
