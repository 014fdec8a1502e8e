import SubmitButton from "../islands/SubmitButton";
import { buttonLabels, screens } from "../messages/ja";
import { CatalogueModal, CatalogueModalOpener } from "./layout/CatalogueModal";
import { Field } from "./layout/Field";
import { MfaFactorCard } from "./MfaSetup";

const PHONE_FORM_ID = "sms-phone-form";

/**
 * SPEC §2 MFASetupSMS: the phone number, then the code it receives. The SMS comes from abroad, so 'send code'
 * opens a warning first and the warning's own button submits the phone form (popover + form attribute: no script).
 */
export function MfaSetupSms() {
  const text = screens.mfaSetupSms;
  return (
    <MfaFactorCard
      title={text.title}
      factor="sms"
      modals={
        <CatalogueModal
          name="smsSendWarning"
          actions={
            <button type="submit" form={PHONE_FORM_ID} className="button">
              {buttonLabels.send}
            </button>
          }
        />
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action="/mfa/setup/SMS/sendCode" id={PHONE_FORM_ID}>
        {/* The form's default button, disabled: Enter in the phone field must not send without the warning. */}
        <button type="submit" disabled hidden aria-hidden="true" tabIndex={-1} />
        <Field preset="phoneNumber" />
        <CatalogueModalOpener name="smsSendWarning" look="button">
          {buttonLabels.sendSmsCode}
        </CatalogueModalOpener>
      </form>
      <p className="lead">{text.codeLead}</p>
      <p className="note">{text.validity}</p>
      <form method="post" action="/mfa/setup/SMS">
        <Field preset="mfaOtpCode" />
        <SubmitButton label="set" />
      </form>
    </MfaFactorCard>
  );
}
