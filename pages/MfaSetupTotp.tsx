import SubmitButton from "../islands/SubmitButton";
import { screens } from "../messages/ja";
import { Field } from "./layout/Field";
import { QrCode } from "./layout/QrCode";
import { Spinner } from "./layout/Spinner";
import { MfaFactorCard } from "./MfaSetup";

export interface TotpSecret {
  /** The base32 secret the user may type into the app instead of scanning. */
  key: string;
  /** The otpauth:// URI the QR code carries. */
  otpauthUri: string;
}

export interface MfaSetupTotpProps {
  /** Absent until the identity API has issued it: the spinner shows in its place. */
  secret?: TotpSecret | undefined;
}

/** SPEC §2 MFASetupTOTP: install an authenticator app, scan the QR code (or type the key), enter its code. */
export function MfaSetupTotp({ secret }: MfaSetupTotpProps) {
  const text = screens.mfaSetupTotp;
  return (
    <MfaFactorCard title={text.title} factor="totp">
      <ol className="steps">
        {text.steps.map((step) => (
          <li key={step}>{step}</li>
        ))}
      </ol>
      <div className="qr">{secret ? <QrCode text={secret.otpauthUri} label={text.qrAlt} /> : <Spinner open />}</div>
      {secret ? (
        <dl className="secret-key">
          <dt className="field-label">{text.secretKey}</dt>
          <dd className="secret">{secret.key}</dd>
        </dl>
      ) : null}
      <form method="post" action="/mfa/setup/TOTP">
        <Field preset="mfaOtpCode" />
        <SubmitButton label="set" />
      </form>
    </MfaFactorCard>
  );
}
