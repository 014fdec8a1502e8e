import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { mfaCodeField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { Modal, ModalOpener } from "./layout/Modal";
import { serviceTopUrl, usePage } from "./layout/PageContext";
import { SupportLink } from "./layout/SupportModal";
import { type ModalKey, screens } from "./messages";

export interface SignInMfaProps {
  type: "TOTP" | "SMS";
  /** Where 'start over' restarts the authorization flow; the service top when there is no auth request. */
  restartHref?: string | undefined;
  errors?: { mfaCode?: string };
  modal?: ModalKey | undefined;
}

const SMS_HELP_ID = "sms-help-modal";

/** SPEC §2 SignInMFA: the second factor's 6-digit code; the SMS variant has a time limit and an undelivered-SMS help. */
export function SignInMfa({ type, restartHref, errors = {}, modal }: SignInMfaProps) {
  const page = usePage();
  const text = screens.signInMfa;
  const sms = type === "SMS";
  return (
    <Card
      title={sms ? text.titleSms : text.titleTotp}
      support={sms ? "sms" : "totp"}
      links={
        <>
          {sms ? <ModalOpener target={SMS_HELP_ID}>{text.smsHelpLink}</ModalOpener> : null}
          <SupportLink />
        </>
      }
      modals={
        <>
          {sms ? (
            <Modal id={SMS_HELP_ID} title={text.smsHelpTitle} body={text.smsHelpBody} closable>
              <div className="modal-actions">
                <a className="button" href={restartHref ?? serviceTopUrl(page)}>
                  {text.startOver}
                </a>
              </div>
            </Modal>
          ) : null}
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
      <p className="lead">{sms ? text.leadSms : text.leadTotp}</p>
      {sms ? <p className="note">{text.smsValidity}</p> : null}
      <form method="post" action="/signIn/mfa">
        <TextField {...mfaCodeField("mfaCode", { error: errors.mfaCode })} />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
