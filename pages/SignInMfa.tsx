import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { CatalogueModal, CatalogueModalOpener } from "./layout/CatalogueModal";
import { Field } from "./layout/Field";
import { serviceTopUrl, usePage } from "./layout/PageContext";
import { SupportLink } from "./layout/SupportModal";

export interface SignInMfaProps {
  type?: "TOTP" | "SMS";
  /** Where 'start over' restarts the authorization flow; the service top when there is no auth request. */
  restartHref?: string | undefined;
}

/** product §2 SignInMFA: the second factor's 6-digit code; the SMS variant has a time limit and an undelivered-SMS help. */
export function SignInMfa({ type = "TOTP", restartHref }: SignInMfaProps) {
  const page = usePage();
  const text = screens.signInMfa;
  const sms = type === "SMS";
  return (
    <Card
      guarded
      title={sms ? text.titleSms : text.titleTotp}
      support={sms ? "sms" : "totp"}
      links={
        <>
          {sms ? <CatalogueModalOpener name="smsHelp">{text.smsHelpLink}</CatalogueModalOpener> : null}
          <SupportLink />
        </>
      }
      modals={
        sms ? (
          <CatalogueModal
            name="smsHelp"
            actions={
              <a className="button" href={restartHref ?? serviceTopUrl(page)}>
                {text.startOver}
              </a>
            }
          />
        ) : null
      }
    >
      <p className="lead">{sms ? text.leadSms : text.leadTotp}</p>
      {sms ? <p className="note">{text.smsValidity}</p> : null}
      <form method="post" action="/signIn/mfa">
        <Field preset="mfaCode" />
        <SubmitButton label={buttonLabels.logIn} />
      </form>
    </Card>
  );
}
