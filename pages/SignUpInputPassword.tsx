import { SubmitButton } from "../islands/hosts";
import { buttonLabels, common, fieldLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { CatalogueModal, CatalogueModalOpener } from "./layout/CatalogueModal";
import { Field } from "./layout/Field";
import { ModalCloser } from "./layout/Modal";
import { PostButton } from "./layout/PostButton";
import { SupportLink } from "./layout/SupportModal";

/**
 * product §2 SignUpInputPassword: the e-mail read-only, a new password with its live checklist. The e-mail is text, which
 * wraps (a read-only field would cut a long address at a large text size); a hidden field gives it to password
 * managers, which save it with the new password.
 */
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
        <dl className="sent-to">
          <dt className="field-label">{fieldLabels.email}</dt>
          <dd>{email}</dd>
        </dl>
        <input type="email" autoComplete="username" value={email} readOnly hidden />
        <Field preset="signUpPassword" identities={[email]} />
        <SubmitButton label={buttonLabels.register} />
      </form>
    </Card>
  );
}
