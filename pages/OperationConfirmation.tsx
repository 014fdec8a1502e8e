import type { AuthorizationDetail, BankAccount } from "../forms/authorizationDetails";
import { PasskeySignIn, SubmitButton } from "../islands/hosts";
import { buttonLabels, common, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { HiddenFields, PostButton } from "./layout/PostButton";
import { SupportLink } from "./layout/SupportModal";

/**
 * Where the screen's forms post (worker/routes.tsx): the signed approval (its options at `/options`), the brand's
 * temporary alternative (the password, then the code the upstream asks next), the cancel.
 */
export const OPERATION_PATH = "/operation";
export const OPERATION_PASSWORD_PATH = "/operation/password";
export const OPERATION_CODE_PATH = "/operation/code";
export const OPERATION_CANCEL_PATH = "/operation/cancel";

/** A code the alternative's login asked for after the password: the second factor's, or a new device's. */
export type OperationCodeStep =
  | { flow: "mfa_totp" | "mfa_sms" }
  | { flow: "device_confirmation"; destination: string | undefined };

export interface OperationConfirmationProps {
  /** The operation as the app pushed it (forms/authorizationDetails.ts), read from the upstream's login request. */
  detail: AuthorizationDetail;
  clientId: string;
  /** Which operation this page shows (a digest of its login challenge): a form of an older page is refused. */
  shown: string;
  /** Passkeys are on for this brand here and the app's webview has not said no: the island offers the button. */
  passkeys: boolean;
  /** The brand's temporary alternative (docs/operations.md): the password and a second factor approve too. */
  alternative: boolean;
  /** The alternative's password was accepted: the code it asks for next, instead of every other way. */
  codeStep?: OperationCodeStep | undefined;
}

const text = screens.operation;

function account({ bank_name, branch_name, account_type, account_number }: BankAccount): string {
  return text.account(bank_name, branch_name, account_type, account_number);
}

/** The rows of the definition list: what the push carried, in words, and nothing else. */
function rows(detail: AuthorizationDetail): [term: string, value: string][] {
  switch (detail.type) {
    case "withdrawal":
      return [
        [text.amount, text.yen(detail.amount)],
        [text.destination, account(detail.destination)],
      ];
    case "bank_account_change":
      return [[text.newAccount, account(detail.account)]];
    case "contact_change":
      return [
        [text.contactChannel, text.channels[detail.channel]],
        [text.newContact, detail.new_value],
      ];
  }
}

/** The alternative's code, over the same details: the customer reads what the code approves as it is typed. */
function CodeForm({ step, fields }: { step: OperationCodeStep; fields: Record<string, string> }) {
  const lead =
    step.flow === "device_confirmation"
      ? text.codeLeads.device_confirmation(step.destination)
      : text.codeLeads[step.flow];
  return (
    <form method="post" action={OPERATION_CODE_PATH}>
      <p className="note">{lead}</p>
      <HiddenFields fields={fields} />
      <Field preset={step.flow === "device_confirmation" ? "code" : "mfaCode"} />
      <SubmitButton label={buttonLabels.approve} />
    </form>
  );
}

/** The alternative's first step: the login ID and password of the account whose operation this is. */
function PasswordForm({ fields }: { fields: Record<string, string> }) {
  return (
    <section aria-labelledby="operation-alternative-heading">
      <h2 id="operation-alternative-heading" className="section-title">
        {text.alternativeHeading}
      </h2>
      <p className="note">{text.alternativeLead}</p>
      <form method="post" action={OPERATION_PASSWORD_PATH}>
        <HiddenFields fields={fields} />
        <Field preset="loginId" />
        <Field preset="password" />
        <SubmitButton label={buttonLabels.next} />
      </form>
    </section>
  );
}

/**
 * docs/operations.md "On the site": the operation the app pushed, to approve with a passkey whose challenge is
 * derived from exactly these details, or to cancel. No password form: only a passkey can complete this login. The
 * step-up page's words say so and what to do without one (or without script or WebAuthn, where no button shows).
 */
export function OperationConfirmation({
  detail,
  clientId,
  shown,
  passkeys,
  alternative,
  codeStep,
}: OperationConfirmationProps) {
  // Brand resolution reads the client_id of a form; the page's own mark goes with each.
  const fields = { client_id: clientId, operation: shown };
  const cancel = (
    <PostButton action={OPERATION_CANCEL_PATH} look="secondary" fields={fields}>
      {common.cancel}
    </PostButton>
  );
  if (codeStep) {
    return (
      <Card guarded title={text.titles[detail.type]} links={<SupportLink />}>
        <p className="lead">{text.leadAlternative}</p>
        <Details detail={detail} />
        <CodeForm step={codeStep} fields={fields} />
        {cancel}
      </Card>
    );
  }
  return (
    <Card guarded title={text.titles[detail.type]} links={<SupportLink />}>
      <p className="lead">{alternative ? text.leadAlternative : text.lead}</p>
      <Details detail={detail} />
      {passkeys ? (
        // The island posts the signed credential here; without script, or without WebAuthn, nothing of it shows.
        <form method="post" action={OPERATION_PATH} className="passkey-form passkey-form--main">
          <HiddenFields fields={fields} />
          <input type="hidden" name="credential" />
          <PasskeySignIn label={buttonLabels.approveWithPasskey} />
        </form>
      ) : null}
      {alternative ? null : <p className="note">{screens.signIn.passkeyRequired}</p>}
      <noscript>
        <p className="note">{text.noScript}</p>
      </noscript>
      {alternative ? <PasswordForm fields={fields} /> : <p className="note">{screens.signIn.noPasskey}</p>}
      {cancel}
    </Card>
  );
}

/** The details as a definition list: what the push carried, and nothing else. */
function Details({ detail }: { detail: AuthorizationDetail }) {
  return (
    <dl className="operation-details">
      {rows(detail).map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
