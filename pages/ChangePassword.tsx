import PasswordField from "../islands/PasswordField";
import SubmitButton from "../islands/SubmitButton";
import { currentPasswordField, newPasswordField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { serviceTopUrl, usePage } from "./layout/PageContext";
import { ResultModal } from "./layout/ResultModal";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";
import { common, type ModalKey, screens } from "./messages";

export interface ChangePasswordProps {
  errors?: { currentPassword?: string; newPassword?: string };
  modal?: ModalKey | undefined;
  /** The password was changed: the success modal, which only leads to the service top. */
  completed?: boolean | undefined;
}

/** SPEC §2 ChangePassword: current and new password; change-password forms say only 'enter a correct password'. */
export function ChangePassword({ errors = {}, modal, completed = false }: ChangePasswordProps) {
  const page = usePage();
  const text = screens.changePassword;
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
          {completed ? (
            <ResultModal
              id="change-password-done"
              title={text.successTitle}
              body={text.successBody}
              href={serviceTopUrl(page)}
              label={common.backToServiceTop}
            />
          ) : null}
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
      <form method="post" action="/changePassword">
        <PasswordField {...currentPasswordField(page.brand.id, { error: errors.currentPassword })} />
        <PasswordField {...newPasswordField(page.brand.id, "passwordForChange", { error: errors.newPassword })} />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
