import { Suspense, use, useContext } from "react";
import { IslandCollector } from "../islands/host";
import { CopySecret, SubmitButton } from "../islands/hosts";
import type { IslandName } from "../islands/names";
import { buttonLabels, screens, secretKeyCopy } from "../messages/ja";
import type { ModalKey } from "../messages/modals";
import { CatalogueModal } from "./layout/CatalogueModal";
import { Field } from "./layout/Field";
import { QrCode } from "./layout/QrCode";
import { Spinner } from "./layout/Spinner";
import { MfaFactorCard } from "./MfaSetup";

export interface TotpSecret {
  /** The base32 secret the user may type into the app instead of scanning. */
  key: string;
  /** The account the app's entry names (the e-mail address), when the profile gave one. */
  account?: string | undefined;
  /** The otpauth:// URI the QR code carries. */
  otpauthUri: string;
}

/** The secret, or the product §8 modal of the upstream call that failed to give it. */
export type TotpSecretResult = { secret: TotpSecret } | { modal: ModalKey };

export interface MfaSetupTotpProps {
  /**
   * The secret, known already (a browser without script gets the page complete), or still on its way while the
   * page streams (a browser that runs script sees the spinner in its place): then the same promise on every call.
   */
  secret: TotpSecretResult | (() => Promise<TotpSecretResult>);
}

// The islands of the part that arrives late: the shell, rendered before it, must ship their script all the same.
const LATE_ISLANDS: readonly IslandName[] = ["CopySecret", "TextField", "SubmitButton"];

function LateIslands() {
  const collected = useContext(IslandCollector);
  for (const name of LATE_ISLANDS) collected?.add(name);
  return null;
}

const KEY_ID = "secret-key";
const GROUP = 4;

/** The key in groups of four characters: easier to read and to type; a selection still copies it whole. */
function keyGroups(secret: string): Array<{ at: number; text: string }> {
  const found: Array<{ at: number; text: string }> = [];
  for (let at = 0; at < secret.length; at += GROUP) found.push({ at, text: secret.slice(at, at + GROUP) });
  return found;
}

/** The QR code, the key and the code form: they need the secret, so they come as one part. */
function SecretPart({ result }: { result: TotpSecretResult }) {
  const text = screens.mfaSetupTotp;
  if ("modal" in result) return <CatalogueModal name={result.modal} id="secret-modal" open />;
  const { key, account, otpauthUri } = result.secret;
  return (
    <>
      <div className="qr">
        <QrCode text={otpauthUri} label={text.qrAlt} />
      </div>
      <dl className="secret-key">
        <dt className="field-label">{text.secretKey}</dt>
        <dd>
          <code id={KEY_ID} className="secret" translate="no">
            {keyGroups(key).map(({ at, text: group }) => (
              <span key={at} className="secret-group">
                {group}
              </span>
            ))}
          </code>
          <CopySecret secret={key} keyId={KEY_ID} text={secretKeyCopy} />
        </dd>
      </dl>
      <p className="lead">{text.codeLead}</p>
      <form method="post" action="/mfa/setup/TOTP">
        {/* What the code belongs to: after a wrong code the page shows the same secret again, asking nobody. */}
        <input type="hidden" name="secret" value={key} />
        <input type="hidden" name="account" value={account ?? ""} />
        <Field preset="mfaOtpCode" />
        <SubmitButton label={buttonLabels.set} />
      </form>
    </>
  );
}

function StreamedSecretPart({ secret }: { secret: () => Promise<TotpSecretResult> }) {
  return <SecretPart result={use(secret())} />;
}

/** product §2 MFASetupTOTP: install an authenticator app, scan the QR code (or type the key), enter its code. */
export function MfaSetupTotp({ secret }: MfaSetupTotpProps) {
  const text = screens.mfaSetupTotp;
  return (
    <MfaFactorCard title={text.title} factor="totp">
      <LateIslands />
      <ol className="steps">
        {text.steps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      {typeof secret === "function" ? (
        <Suspense
          fallback={
            <div className="qr">
              <Spinner open />
            </div>
          }
        >
          <StreamedSecretPart secret={secret} />
        </Suspense>
      ) : (
        <SecretPart result={secret} />
      )}
    </MfaFactorCard>
  );
}
