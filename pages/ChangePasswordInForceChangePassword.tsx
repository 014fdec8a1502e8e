import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { SupportLink } from "./layout/SupportModal";

/**
 * product §2/§4: the sign-in answered new_password; the user must set a password before using the service. The
 * password is chosen here, so the field names the broken rule as reset and sign-up do (product §5), and the login ID
 * typed at sign-in is one it must not be.
 */
export function ChangePasswordInForceChangePassword({ loginId }: { loginId?: string | undefined }) {
  const text = screens.changePasswordInForceChangePassword;
  return (
    <Card guarded title={text.title} links={<SupportLink />}>
      <p className="lead">{text.lead}</p>
      <form method="post" action="/changePasswordInForceChangePassword">
        <Field preset="newPassword" identities={loginId === undefined ? undefined : [loginId]} />
        <SubmitButton label={buttonLabels.change} />
      </form>
    </Card>
  );
}
