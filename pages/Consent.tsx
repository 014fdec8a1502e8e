import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { usePage } from "./layout/PageContext";
import { PostButton } from "./layout/PostButton";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";

/** product §2 Consent: the partner receives the e-mail address and the balance information held by the provider. */
export function Consent({ clientId = "" }: { clientId?: string | undefined }) {
  const { brand } = usePage();
  const text = screens.consent;
  return (
    <Card
      guarded
      title={text.title}
      links={
        <>
          <ServiceTopLink label={text.decline} />
          <SupportLink />
        </>
      }
    >
      <p className="lead">{text.lead(brand.partnerName ?? brand.displayName, brand.providerName)}</p>
      <h2 className="section-title">{text.dataHeading}</h2>
      <ul className="data-list">
        <li>{text.dataEmail}</li>
        <li>{text.dataBalance}</li>
      </ul>
      <p>{text.confirm}</p>
      {/* The consent challenge and scope stay in the sealed consent cookie, never in the page. */}
      <PostButton action={`/${brand.id}/consent`} fields={{ client_id: clientId }}>
        {buttonLabels.agree}
      </PostButton>
    </Card>
  );
}
