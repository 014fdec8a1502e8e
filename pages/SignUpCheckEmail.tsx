import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { CatalogueModal, CatalogueModalOpener } from "./layout/CatalogueModal";
import { Field } from "./layout/Field";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";

/** product §2 SignUpCheckEmail: the e-mail that becomes the login ID. */
export function SignUpCheckEmail() {
  const text = screens.signUpCheckEmail;
  return (
    <Card
      guarded
      title={text.title}
      links={
        <>
          <a href="/signIn">{text.toSignIn}</a>
          <CatalogueModalOpener name="whatIsId" />
          <SupportLink />
          <ServiceTopLink />
        </>
      }
      modals={<CatalogueModal name="whatIsId" />}
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action="/signUp/checkEmail">
        <Field preset="email" />
        <SubmitButton label={buttonLabels.next} />
      </form>
    </Card>
  );
}
