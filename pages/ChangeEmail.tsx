import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";

/** product §2 ChangeEmail: the new address; the confirmation goes to the previous one first (product §4). */
export function ChangeEmail() {
  const text = screens.changeEmail;
  return (
    <Card
      guarded
      title={text.title}
      links={
        <>
          <SupportLink />
          <ServiceTopLink />
        </>
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action="/changeEmail">
        <Field preset="newEmail" />
        <SubmitButton label={buttonLabels.sendMail} />
      </form>
    </Card>
  );
}
