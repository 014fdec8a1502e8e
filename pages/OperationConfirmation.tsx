import type { AuthorizationDetail, BankAccount } from "../forms/authorizationDetails";
import { PasskeySignIn } from "../islands/hosts";
import { buttonLabels, common, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { PostButton } from "./layout/PostButton";
import { SupportLink } from "./layout/SupportModal";

/** Where the screen's forms post (worker/routes.tsx): the signed approval (its options at `/options`), the cancel. */
export const OPERATION_PATH = "/operation";
export const OPERATION_CANCEL_PATH = "/operation/cancel";

export interface OperationConfirmationProps {
  /** The operation as the app pushed it (forms/authorizationDetails.ts), read from the upstream's login request. */
  detail: AuthorizationDetail;
  clientId: string;
  /** Which operation this page shows (a digest of its login challenge): a form of an older page is refused. */
  shown: string;
  /** Passkeys are on for this brand here and the app's webview has not said no: the island offers the button. */
  passkeys: boolean;
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

/**
 * docs/operations.md "On the site": the operation the app pushed, to approve with a passkey whose challenge is
 * derived from exactly these details, or to cancel. No password form: only a passkey can complete this login. The
 * step-up page's words say so and what to do without one (or without script or WebAuthn, where no button shows).
 */
export function OperationConfirmation({ detail, clientId, shown, passkeys }: OperationConfirmationProps) {
  // Brand resolution reads the client_id of a form; the page's own mark goes with each.
  const fields = { client_id: clientId, operation: shown };
  return (
    <Card guarded title={text.titles[detail.type]} links={<SupportLink />}>
      <p className="lead">{text.lead}</p>
      <dl className="operation-details">
        {rows(detail).map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {passkeys ? (
        // The island posts the signed credential here; without script, or without WebAuthn, nothing of it shows.
        <form method="post" action={OPERATION_PATH} className="passkey-form passkey-form--main">
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="credential" />
          <PasskeySignIn label={buttonLabels.approveWithPasskey} />
        </form>
      ) : null}
      <p className="note">{screens.signIn.passkeyRequired}</p>
      <noscript>
        <p className="note">{text.noScript}</p>
      </noscript>
      <p className="note">{screens.signIn.noPasskey}</p>
      <PostButton action={OPERATION_CANCEL_PATH} look="secondary" fields={fields}>
        {common.cancel}
      </PostButton>
    </Card>
  );
}
