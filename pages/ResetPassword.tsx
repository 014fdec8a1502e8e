import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { emailField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { SupportLink } from "./layout/SupportModal";
import { type ModalKey, screens } from "./messages";

export interface ResetPasswordProps {
  clientId?: string | undefined;
  email?: string | undefined;
  errors?: { email?: string };
  modal?: ModalKey | undefined;
}

/** SPEC §2 ResetPassword: the registered address the reset link is mailed to. */
export function ResetPassword({ clientId = "", email, errors = {}, modal }: ResetPasswordProps) {
  const text = screens.resetPassword;
  return (
    <Card title={text.title} links={<SupportLink />} modals={modal ? <MessageModal message={modal} /> : null}>
      <p className="lead">{text.lead}</p>
      <form method="post" action="/resetPassword">
        <input type="hidden" name="client_id" value={clientId} />
        <TextField {...emailField({ value: email, error: errors.email })} />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
