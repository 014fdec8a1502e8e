import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { emailField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { Modal } from "./layout/Modal";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";
import { fieldLabels, type ModalKey, screens } from "./messages";

export interface ChangeEmailProps {
  newEmail?: string | undefined;
  errors?: { newEmail?: string };
  modal?: ModalKey | undefined;
  /** The request was accepted: the information modal about the mail sent to the previous address. */
  sent?: boolean | undefined;
}

/** SPEC §2 ChangeEmail: the new address; the confirmation goes to the previous one first (SPEC §4). */
export function ChangeEmail({ newEmail, errors = {}, modal, sent = false }: ChangeEmailProps) {
  const text = screens.changeEmail;
  return (
    <Card
      title={text.title}
      links={
        <>
          <SupportLink />
          <ServiceTopLink />
        </>
      }
      modals={
        <>
          {sent ? (
            <Modal id="change-email-sent" title={text.sentTitle} body={text.sentBody} closable openOnLoad />
          ) : null}
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action="/changeEmail">
        <TextField
          {...emailField(
            { value: newEmail, error: errors.newEmail },
            { name: "newEmail", label: fieldLabels.newEmail },
          )}
        />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
