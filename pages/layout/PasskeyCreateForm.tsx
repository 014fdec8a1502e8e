import { PasskeyCreate, SubmitButton } from "../../islands/hosts";
import { buttonLabels, screens } from "../../messages/ja";
import { Field } from "./Field";
import { PostButton } from "./PostButton";

/** Where a registration stands: nothing yet, the mailed code asked for, or the ceremony ready for the browser. */
export type PasskeyRegistrationStage = "start" | "code" | "create";

/**
 * docs/passkeys.md: the two steps of a passkey registration that the enrolment screen and `/passkeys` share: the
 * code mailed to the account (a phished password and code must not be enough to plant a passkey), then the
 * browser's ceremony, posted by the island with this form. `base` is the registration's path: `base/verify` takes the
 * code, `base/code` sends another, `base` takes the credential.
 */
export function PasskeyCreateForm({ stage, base }: { stage: "code" | "create"; base: string }) {
  const text = screens.passkeyEnrolment;
  if (stage === "code")
    return (
      <>
        <p className="lead">{text.codeLead}</p>
        <form method="post" action={`${base}/verify`}>
          <Field preset="code" />
          <SubmitButton label={buttonLabels.next} />
        </form>
        <p className="notes">{text.codeValidity}</p>
        <form method="post" action={`${base}/code`}>
          <button type="submit" className="link-button">
            {text.resend}
          </button>
        </form>
      </>
    );
  return (
    <>
      <p className="lead">{text.createLead}</p>
      <form method="post" action={base}>
        <input type="hidden" name="credential" />
        <PasskeyCreate label={buttonLabels.createPasskey} />
      </form>
      <noscript>
        <p className="notes">{text.noScript}</p>
      </noscript>
    </>
  );
}

/**
 * The whole registration where it starts with one button (the enrolment, the second-factor step): why a passkey and
 * 「パスキーを登録する」, posting to `start`; then the steps of PasskeyCreateForm.
 */
export function PasskeyRegistrationSteps({
  stage,
  base,
  start,
}: {
  stage: PasskeyRegistrationStage;
  base: string;
  start: string;
}) {
  if (stage !== "start") return <PasskeyCreateForm stage={stage} base={base} />;
  return (
    <>
      <p className="lead">{screens.passkeyEnrolment.lead}</p>
      <PostButton action={start}>{buttonLabels.registerPasskey}</PostButton>
    </>
  );
}
