import { SubmitButton } from "../islands/hosts";
import { buttonLabels, common, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { CatalogueModal, CatalogueModalOpener } from "./layout/CatalogueModal";
import { Field } from "./layout/Field";
import { ModalCloser } from "./layout/Modal";
import { PostButton } from "./layout/PostButton";
import { SupportLink } from "./layout/SupportModal";

/** SPEC §2 SignUpInputPassword: the e-mail read-only, a new password with its live checklist. */
export function SignUpInputPassword({ email = "" }: { email?: string }) {
  const text = screens.signUpInputPassword;
  return (
    <Card
      guarded
      title={text.title}
      links={
        <>
          <CatalogueModalOpener name="signUpBackWarning">{text.backToEmail}</CatalogueModalOpener>
          <SupportLink />
        </>
      }
      modals={
        <CatalogueModal
          name="signUpBackWarning"
          actions={
            <>
              <PostButton action="/signUp/inputPassword/back">{buttonLabels.move}</PostButton>
              <ModalCloser target="signUpBackWarning-modal">{common.cancel}</ModalCloser>
            </>
          }
        />
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action="/signUp/inputPassword">
        <Field preset="email" value={email} readOnly />
        <Field preset="signUpPassword" identities={[email]} />
        <SubmitButton label={buttonLabels.register} />
      </form>
    </Card>
  );
}
