import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { usePage } from "./layout/PageContext";
import { SupportLink } from "./layout/SupportModal";

/** The two mail links that lead here: a forgotten password, and a password the provider asks the user to set. */
export type NewPasswordVariant = "forgotPassword" | "initiatePassword";

export interface NewPasswordProps {
  variant: NewPasswordVariant;
  /** From the mail link's query; posted back unchanged. */
  clientId?: string | undefined;
  code?: string | undefined;
  username?: string | undefined;
}

/** product §2 new-password pages (/{serviceId}/forgotPassword, /{serviceId}/initiatePassword). */
export function NewPassword({ variant, clientId = "", code = "", username = "" }: NewPasswordProps) {
  const { brand } = usePage();
  const text = screens.newPassword;
  return (
    <Card title={variant === "forgotPassword" ? text.titleForgot : text.titleInitiate} links={<SupportLink />}>
      <p className="lead">{text.lead}</p>
      <form method="post" action={`/${brand.id}/${variant}`}>
        <input type="hidden" name="client_id" value={clientId} />
        <input type="hidden" name="code" value={code} />
        <input type="hidden" name="username" value={username} />
        <Field preset="newPassword" identities={[username]} />
        <SubmitButton label={buttonLabels.change} />
      </form>
    </Card>
  );
}
