import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { Modal, ModalOpener } from "./layout/Modal";
import { usePage } from "./layout/PageContext";
import { SupportLink } from "./layout/SupportModal";
import { type ModalKey, screens } from "./messages";

export interface ResetPasswordSendMailProps {
  modal?: ModalKey | undefined;
}

const MAIL_HELP_ID = "mail-help-modal";

/** SPEC §2 ResetPasswordSendMail: the reset mail is on its way, valid 60 minutes; help for mail that does not arrive. */
export function ResetPasswordSendMail({ modal }: ResetPasswordSendMailProps) {
  const { mailSenderDomain } = usePage();
  const text = screens.resetPasswordSendMail;
  return (
    <Card
      title={text.title}
      links={
        <>
          <ModalOpener target={MAIL_HELP_ID}>{text.helpLink}</ModalOpener>
          <SupportLink />
        </>
      }
      modals={
        <>
          <Modal id={MAIL_HELP_ID} title={text.helpTitle} closable>
            <ul className="notes">
              {text.helpChecks(mailSenderDomain).map((check) => (
                <li key={check}>{check}</li>
              ))}
            </ul>
          </Modal>
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
      <p className="lead">{text.lead}</p>
    </Card>
  );
}
