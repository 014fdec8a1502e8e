import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { mfaCodeField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { QrCode } from "./layout/QrCode";
import { ResultModal } from "./layout/ResultModal";
import { Spinner } from "./layout/Spinner";
import { SupportLink } from "./layout/SupportModal";
import { common, type ModalKey, screens } from "./messages";

export interface TotpSecret {
  /** The base32 secret the user may type into the app instead of scanning. */
  key: string;
  /** The otpauth:// URI the QR code carries. */
  otpauthUri: string;
}

export interface MfaSetupTotpProps {
  /** Absent until the identity API has issued it: the spinner shows in its place. */
  secret?: TotpSecret | undefined;
  errors?: { mfaOtpCode?: string };
  modal?: ModalKey | undefined;
  /** Set-up succeeded: the 'authentication complete' modal, leading on to where the flow continues. */
  completedHref?: string | undefined;
}

/** SPEC §2 MFASetupTOTP: install an authenticator app, scan the QR code (or type the key), enter its code. */
export function MfaSetupTotp({ secret, errors = {}, modal, completedHref }: MfaSetupTotpProps) {
  const text = screens.mfaSetupTotp;
  return (
    <Card
      title={text.title}
      support="totp"
      links={
        <>
          <a href="/mfa/setup">{screens.mfaSetup.backToChoice}</a>
          <SupportLink />
        </>
      }
      modals={
        <>
          {completedHref ? (
            <ResultModal
              id="mfa-setup-done"
              title={screens.mfaSetup.successTitle}
              body={screens.mfaSetup.successBody}
              href={completedHref}
              label={common.next}
            />
          ) : null}
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
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
        <TextField {...mfaCodeField("mfaOtpCode", { error: errors.mfaOtpCode })} />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
