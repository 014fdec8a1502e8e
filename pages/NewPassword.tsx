import PasswordField from "../islands/PasswordField";
import SubmitButton from "../islands/SubmitButton";
import { newPasswordField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { serviceTopUrl, usePage } from "./layout/PageContext";
import { ResultModal } from "./layout/ResultModal";
import { SupportLink } from "./layout/SupportModal";
import { common, type ModalKey, screens } from "./messages";

/** The two mail links that lead here: a forgotten password, and a password the provider asks the user to set. */
export type NewPasswordVariant = "forgotPassword" | "initiatePassword";

export interface NewPasswordProps {
  variant: NewPasswordVariant;
  /** From the mail link's query; posted back unchanged. */
  clientId?: string | undefined;
  code?: string | undefined;
  username?: string | undefined;
  errors?: { newPassword?: string };
  modal?: ModalKey | undefined;
  /** The password was changed: the success modal, which only leads back to the app. */
  completed?: boolean | undefined;
}

/** SPEC §2 new-password pages (/{tenantId}/forgotPassword, /{tenantId}/initiatePassword). */
export function NewPassword({
  variant,
  clientId = "",
  code = "",
  username = "",
  errors = {},
  modal,
  completed = false,
}: NewPasswordProps) {
  const page = usePage();
  const text = screens.newPassword;
  return (
    <Card
      title={variant === "forgotPassword" ? text.titleForgot : text.titleInitiate}
      links={<SupportLink />}
      modals={
        <>
          {completed ? (
            <ResultModal
              id="new-password-done"
              title={text.successTitle}
              body={text.successBody}
              href={serviceTopUrl(page)}
              label={common.backToApp}
            />
          ) : null}
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action={`/${page.brand.id}/${variant}`}>
        <input type="hidden" name="client_id" value={clientId} />
        <input type="hidden" name="code" value={code} />
        <input type="hidden" name="username" value={username} />
        <PasswordField {...newPasswordField(page.brand.id, "password", { error: errors.newPassword })} />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
