import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { serviceTopUrl, usePage } from "./layout/PageContext";
import { PostButton } from "./layout/PostButton";
import { SupportLink } from "./layout/SupportModal";

export interface SignUpConfirmMailProps {
  /** The address the code went to, when the sign-up state still has it. */
  email?: string | undefined;
  /** Where 'fix the e-mail' restarts the authorization flow; the service top when there is no auth request. */
  restartHref?: string | undefined;
}

/** product §2 SignUpConfirmMail: the 6-digit code mailed at sign-up, with resend and fix-the-address. */
export function SignUpConfirmMail({ email, restartHref }: SignUpConfirmMailProps) {
  const page = usePage();
  const text = screens.signUpConfirmMail;
  return (
    <Card
      guarded
      title={text.title}
      links={
        <>
          <PostButton action="/signUp/confirmMail/resend" look="link">
            {text.resend}
          </PostButton>
          <a href={restartHref ?? serviceTopUrl(page)}>{text.fixEmail}</a>
          <SupportLink />
        </>
      }
    >
      <p className="lead">{email ? text.lead(email) : text.leadNoEmail}</p>
      <p className="note">{text.validity}</p>
      <form method="post" action="/signUp/confirmMail">
        <Field preset="code" />
        <SubmitButton label={buttonLabels.next} />
      </form>
    </Card>
  );
}
