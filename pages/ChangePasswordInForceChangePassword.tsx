import PasswordField from "../islands/PasswordField";
import SubmitButton from "../islands/SubmitButton";
import { newPasswordField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { usePage } from "./layout/PageContext";
import { SupportLink } from "./layout/SupportModal";
import { type ModalKey, screens } from "./messages";

export interface ChangePasswordInForceChangePasswordProps {
  errors?: { newPassword?: string };
  modal?: ModalKey | undefined;
}

/**
 * SPEC §2/§4: the sign-in answered new_password; the user must set a password before using the service. The
 * password is chosen here, so the field names the broken rule as reset and sign-up do (SPEC §5).
 */
export function ChangePasswordInForceChangePassword({ errors = {}, modal }: ChangePasswordInForceChangePasswordProps) {
  const { brand } = usePage();
  const text = screens.changePasswordInForceChangePassword;
  return (
    <Card title={text.title} links={<SupportLink />} modals={modal ? <MessageModal message={modal} /> : null}>
      <p className="lead">{text.lead}</p>
      <form method="post" action="/changePasswordInForceChangePassword">
        <PasswordField {...newPasswordField(brand.id, "password", { error: errors.newPassword })} />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
