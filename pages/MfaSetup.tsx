import { screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { usePage } from "./layout/PageContext";
import { SupportLink } from "./layout/SupportModal";

/** SPEC §2 MFASetup: one button per second factor the brand allows; 'set up later' only where NONE is allowed. */
export function MfaSetup() {
  const { brand } = usePage();
  const text = screens.mfaSetup;
  return (
    <Card
      title={text.title}
      links={
        <>
          {brand.mfaTypes.includes("NONE") ? (
            <form method="post" action="/mfa/setup/skip">
              <button type="submit" className="link-button">
                {text.later}
              </button>
            </form>
          ) : null}
          <SupportLink />
        </>
      }
    >
      <p className="lead">{text.lead}</p>
      <div className="choices">
        {brand.mfaTypes.includes("TOTP") ? (
          <a className="button" href="/mfa/setup/TOTP">
            {text.totp}
          </a>
        ) : null}
        {brand.mfaTypes.includes("SMS") ? (
          <a className="button" href="/mfa/setup/SMS">
            {text.sms}
          </a>
        ) : null}
      </div>
    </Card>
  );
}
