import PasswordField from "../islands/PasswordField";
import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { emailField, passwordField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { Modal, ModalOpener } from "./layout/Modal";
import { usePage } from "./layout/PageContext";
import { SupportLink } from "./layout/SupportModal";
import { common, fieldLabels, type ModalKey, screens } from "./messages";

export interface SignUpInputPasswordProps {
  email: string;
  errors?: { password?: string };
  modal?: ModalKey | undefined;
}

const BACK_WARNING_ID = "back-to-email-modal";

/** SPEC §2 SignUpInputPassword: the e-mail read-only, a new password with its live checklist. */
export function SignUpInputPassword({ email, errors = {}, modal }: SignUpInputPasswordProps) {
  const { brand } = usePage();
  const text = screens.signUpInputPassword;
  return (
    <Card
      title={text.title}
      links={
        <>
          <ModalOpener target={BACK_WARNING_ID}>{text.backToEmail}</ModalOpener>
          <SupportLink />
        </>
      }
      modals={
        <>
          <Modal id={BACK_WARNING_ID} title={text.backWarningTitle} body={text.backWarningBody} closable={false}>
            <div className="modal-actions">
              <form method="post" action="/signUp/inputPassword/back">
                <button type="submit" className="button">
                  {text.move}
                </button>
              </form>
              <button
                type="button"
                className="button button--secondary"
                popoverTarget={BACK_WARNING_ID}
                popoverTargetAction="hide"
              >
                {common.cancel}
              </button>
            </div>
          </Modal>
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action="/signUp/inputPassword">
        <TextField {...emailField({ value: email }, { readOnly: true })} />
        <PasswordField
          {...passwordField(
            {
              name: "password",
              label: fieldLabels.password,
              autoComplete: "new-password",
              rule: "password",
              checklist: true,
              serviceId: brand.id,
            },
            { error: errors.password },
          )}
        />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
