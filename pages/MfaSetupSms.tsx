import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { mfaCodeField, phoneField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { Modal, ModalOpener } from "./layout/Modal";
import { ResultModal } from "./layout/ResultModal";
import { SupportLink } from "./layout/SupportModal";
import { common, type ModalKey, screens } from "./messages";

export interface MfaSetupSmsProps {
  phoneNumber?: string | undefined;
  errors?: { phoneNumber?: string; mfaOtpCode?: string };
  modal?: ModalKey | undefined;
  /** Set-up succeeded: the 'authentication complete' modal, leading on to where the flow continues. */
  completedHref?: string | undefined;
}

const PHONE_FORM_ID = "sms-phone-form";
const WARNING_ID = "sms-warning-modal";

/**
 * SPEC §2 MFASetupSMS: the phone number, then the code it receives. The SMS comes from abroad, so 'send code'
 * opens a warning first and the warning's own button submits the phone form (popover + form attribute: no script).
 */
export function MfaSetupSms({ phoneNumber, errors = {}, modal, completedHref }: MfaSetupSmsProps) {
  const text = screens.mfaSetupSms;
  return (
    <Card
      title={text.title}
      support="sms"
      links={
        <>
          <a href="/mfa/setup">{screens.mfaSetup.backToChoice}</a>
          <SupportLink />
        </>
      }
      modals={
        <>
          <Modal id={WARNING_ID} title={text.warningTitle} body={text.warningBody} closable>
            <div className="modal-actions">
              <button type="submit" form={PHONE_FORM_ID} className="button">
                {text.send}
              </button>
            </div>
          </Modal>
          {completedHref ? (
            <ResultModal
              id="mfa-setup-done"
              title={screens.mfaSetup.successTitle}
              body={screens.mfaSetup.successBody}
              href={completedHref}
              label={common.next}
            />
          ) : null}
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action="/mfa/setup/SMS/sendCode" id={PHONE_FORM_ID}>
        {/* The form's default button, disabled: Enter in the phone field must not send without the warning. */}
        <button type="submit" disabled hidden aria-hidden="true" tabIndex={-1} />
        <TextField {...phoneField({ value: phoneNumber, error: errors.phoneNumber })} />
        <ModalOpener target={WARNING_ID} look="button">
          {text.sendCode}
        </ModalOpener>
      </form>
      <p className="lead">{text.codeLead}</p>
      <p className="note">{text.validity}</p>
      <form method="post" action="/mfa/setup/SMS">
        <TextField {...mfaCodeField("mfaOtpCode", { error: errors.mfaOtpCode })} />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
