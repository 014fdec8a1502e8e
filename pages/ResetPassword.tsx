import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { SupportLink } from "./layout/SupportModal";

/** product §2 ResetPassword: the registered address the reset link is mailed to. */
export function ResetPassword({ clientId = "" }: { clientId?: string | undefined }) {
  const text = screens.resetPassword;
  return (
    <Card title={text.title} links={<SupportLink />}>
      <p className="lead">{text.lead}</p>
      <form method="post" action="/resetPassword">
        <input type="hidden" name="client_id" value={clientId} />
        <Field preset="email" />
        <SubmitButton label={buttonLabels.send} />
      </form>
    </Card>
  );
}
