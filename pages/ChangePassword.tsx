import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";

/** product §2 ChangePassword: current and new password; change-password forms say only 'enter a correct password'. */
export function ChangePassword() {
  return (
    <Card
      guarded
      title={screens.changePassword.title}
      links={
        <>
          <SupportLink />
          <ServiceTopLink />
        </>
      }
    >
      <form method="post" action="/changePassword">
        <Field preset="currentPassword" />
        <Field preset="changedPassword" />
        <SubmitButton label={buttonLabels.change} />
      </form>
    </Card>
  );
}
