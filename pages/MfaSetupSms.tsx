import { SmsSendButton, SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { modals } from "../messages/modals";
import { CatalogueModal } from "./layout/CatalogueModal";
import { Field } from "./layout/Field";
import { usePage } from "./layout/PageContext";
import { MfaFactorCard } from "./MfaSetup";

const PHONE_FORM_ID = "sms-phone-form";
const WARNING_ID = "smsSendWarning-modal";
export const SMS_WARNING_PATH = "/mfa/setup/SMS/warning";
export const SMS_SEND_PATH = "/mfa/setup/SMS/sendCode";

export interface MfaSetupSmsProps {
  /** The number last typed (national, 11 digits), kept between the steps. */
  phoneNumber?: string | undefined;
  /** A code has been sent to it: the code step shows. */
  sent?: boolean;
}

/**
 * product §2 MFASetupSMS: the phone number, then the code it receives. The SMS comes from abroad, so the warning comes
 * before the send: with script as a popover whose button sends; without, the form posts to the warning page.
 */
export function MfaSetupSms({ phoneNumber, sent = false }: MfaSetupSmsProps) {
  const { form } = usePage();
  const text = screens.mfaSetupSms;
  return (
    <MfaFactorCard
      title={text.title}
      factor="sms"
      modals={
        <CatalogueModal
          name="smsSendWarning"
          id={WARNING_ID}
          actions={
            <button type="submit" form={PHONE_FORM_ID} formAction={SMS_SEND_PATH} className="button">
              {buttonLabels.send}
            </button>
          }
        />
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action={SMS_WARNING_PATH} id={PHONE_FORM_ID}>
        <Field preset="phoneNumber" value={form?.values.phoneNumber ?? phoneNumber} />
        <SmsSendButton warning={WARNING_ID} label={buttonLabels.sendSmsCode} />
      </form>
      {sent && phoneNumber ? (
        <>
          <p className="note">{text.sentTo(phoneNumber)}</p>
          <p className="lead">{text.codeLead}</p>
          <p className="note">{text.validity}</p>
          <form method="post" action="/mfa/setup/SMS">
            <Field preset="mfaOtpCode" />
            <SubmitButton label={buttonLabels.set} />
          </form>
        </>
      ) : null}
    </MfaFactorCard>
  );
}

/** product §2 MFASetupSMS without script: the abroad warning as a page of its own; its button really sends. */
export function MfaSetupSmsWarning({ phoneNumber }: { phoneNumber: string }) {
  const text = screens.mfaSetupSms;
  const warning = modals.smsSendWarning;
  return (
    <MfaFactorCard title={text.title} factor="sms">
      <h2 className="section-title">{warning.title}</h2>
      <p className="lead">{warning.body}</p>
      <dl className="sent-to">
        <dt className="field-label">{text.warningNumber}</dt>
        <dd>{phoneNumber}</dd>
      </dl>
      <form method="post" action={SMS_SEND_PATH}>
        <input type="hidden" name="phoneNumber" value={phoneNumber} />
        <button type="submit" className="button">
          {buttonLabels.send}
        </button>
      </form>
      <a className="button button--secondary" href="/mfa/setup/SMS">
        {text.changeNumber}
      </a>
    </MfaFactorCard>
  );
}
