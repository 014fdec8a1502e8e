import { useEffect, useId, useState } from "react";

export interface PasskeyOfferProps {
  /** The choice's words and the line that says why (messages/ja.ts `screens.mfaSetup`), from the server. */
  label: string;
  note: string;
  /** Where the choice posts: the start of the passkey registration (worker/routes/mfaSetupPasskey.tsx). */
  action: string;
}

/**
 * docs/passkeys.md "Passkey first": on the second-factor step, a passkey offered before the authenticator app and
 * SMS, shown only once the browser (or the app's webview) says a platform authenticator that verifies its user is
 * there, as the sign-in's passkey button. Without script, or where WebAuthn does not work, nothing shows and the
 * step is the app and SMS choice alone.
 */
export default function PasskeyOffer({ label, note, action }: PasskeyOfferProps) {
  const [available, setAvailable] = useState(false);
  const noteId = useId();

  useEffect(() => {
    void window.PublicKeyCredential?.isUserVerifyingPlatformAuthenticatorAvailable?.().then(setAvailable, () => {});
  }, []);

  return available ? (
    <form method="post" action={action} className="choice-recommended">
      <button type="submit" className="button" aria-describedby={noteId}>
        {label}
      </button>
      <p className="notes" id={noteId}>
        {note}
      </p>
    </form>
  ) : null;
}
