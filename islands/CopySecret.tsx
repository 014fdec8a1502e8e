import { useEffect, useState } from "react";
import type { secretKeyCopy } from "../messages/ja";

export interface CopySecretProps {
  /** The base32 secret of the pending TOTP setup; it is on the page anyway, for the user to type or copy. */
  secret: string;
  /** The id of the page's element that shows the key (pages/MfaSetupTotp.tsx), selected when copying fails. */
  keyId: string;
  /** The button's and status words (messages/ja.ts `secretKeyCopy`), from the server. */
  text: typeof secretKeyCopy;
}

/**
 * product §2 MFASetupTOTP "copyable secret key": where script runs, a button that copies the key the page shows.
 * Without script there is no button, and the key selects in one click (CSS user-select: all).
 */
export default function CopySecret({ secret, keyId, text }: CopySecretProps) {
  const [scripted, setScripted] = useState(false);
  const [status, setStatus] = useState("");
  useEffect(() => setScripted(true), []);

  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setStatus(text.copied),
      () => {
        // No clipboard (permission, an old webview): the key is selected so that the user can copy it.
        const key = document.getElementById(keyId);
        if (key) window.getSelection()?.selectAllChildren(key);
        setStatus(text.failed);
      },
    );

  return (
    <>
      {scripted ? (
        <button type="button" className="button button--secondary" onClick={copy}>
          {status === text.copied ? text.copied : text.copy}
        </button>
      ) : null}
      <p className="note" role="status">
        {status === text.failed ? status : ""}
        <span className="visually-hidden">{status === text.copied ? status : ""}</span>
      </p>
    </>
  );
}
