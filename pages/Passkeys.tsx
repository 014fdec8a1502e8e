import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { PasskeyCreateForm, type PasskeyRegistrationStage } from "./layout/PasskeyCreateForm";
import { PostButton } from "./layout/PostButton";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";

/** Where the screen's forms post (worker/routes/passkeys.tsx). */
export const PASSKEYS_PATH = "/passkeys";

/** One passkey as the screen shows it: its name (the user's, the provider's, or a plain one) and dates, ready. */
export interface PasskeyRow {
  id: string;
  name: string;
  created: string;
  lastUsed: string | null;
  suspended: boolean;
}

export interface PasskeysProps {
  passkeys: PasskeyRow[];
  /** Where adding one stands. */
  stage: PasskeyRegistrationStage;
  /** A "required" brand: the last passkey stays (no delete button then). */
  keepLast: boolean;
}

/** docs/passkeys.md: on a brand whose `passkeys` is "required", the last passkey cannot be deleted. */
export function canDelete(keepLast: boolean, count: number): boolean {
  return !keepLast || count > 1;
}

/** docs/passkeys.md "Managing passkeys": the user's passkeys, each renamed or deleted here, and a new one added. */
export function Passkeys({ passkeys, stage, keepLast }: PasskeysProps) {
  const text = screens.passkeys;
  const deletable = canDelete(keepLast, passkeys.length);
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
      <p className="lead">{passkeys.length ? text.lead : text.none}</p>
      <ul className="passkeys">
        {passkeys.map((passkey) => (
          <li key={passkey.id} className="passkey">
            <p className="passkey-name">
              {passkey.name}
              {passkey.suspended ? <span className="passkey-suspended">{text.suspended}</span> : null}
            </p>
            <p className="notes">
              {text.created(passkey.created)}
              <br />
              {passkey.lastUsed ? text.lastUsed(passkey.lastUsed) : text.neverUsed}
            </p>
            <form method="post" action={`${PASSKEYS_PATH}/rename`} className="passkey-rename">
              <input type="hidden" name="id" value={passkey.id} />
              <label>
                {text.nameLabel}
                <input type="text" name="name" defaultValue={passkey.name} required maxLength={64} />
              </label>
              <button type="submit" className="link-button">
                {buttonLabels.rename}
              </button>
            </form>
            {deletable ? (
              <PostButton action={`${PASSKEYS_PATH}/delete`} look="link" fields={{ id: passkey.id }}>
                {buttonLabels.delete}
              </PostButton>
            ) : (
              <p className="notes">{text.lastOneRequired}</p>
            )}
          </li>
        ))}
      </ul>
      <h2 className="section-title">{text.addHeading}</h2>
      {stage === "start" ? (
        <PostButton action={`${PASSKEYS_PATH}/add/code`}>{buttonLabels.addPasskey}</PostButton>
      ) : (
        <PasskeyCreateForm stage={stage} base={`${PASSKEYS_PATH}/add`} />
      )}
    </Card>
  );
}
