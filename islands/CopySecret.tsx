import { useEffect, useRef, useState } from "react";
import { secretKeyCopy as text } from "../messages/ja";
import { island } from "./host";

export interface CopySecretProps {
  /** The base32 secret of the pending TOTP setup; it is on the page anyway, for the user to type or copy. */
  secret: string;
}

const GROUP = 4;

/** The key in groups of four characters: easier to read and to type; a selection still copies it whole. */
function groups(secret: string): Array<{ at: number; text: string }> {
  const found: Array<{ at: number; text: string }> = [];
  for (let at = 0; at < secret.length; at += GROUP) found.push({ at, text: secret.slice(at, at + GROUP) });
  return found;
}

/**
 * SPEC §2 MFASetupTOTP "copyable secret key": the key, and where script runs a copy button. Without script there
 * is no button, and the key selects in one click (CSS user-select: all).
 */
function CopySecret({ secret }: CopySecretProps) {
  const keyRef = useRef<HTMLElement>(null);
  const [scripted, setScripted] = useState(false);
  const [status, setStatus] = useState("");
  useEffect(() => setScripted(true), []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setStatus(text.copied);
    } catch {
      // No clipboard (permission, an old webview): the key is selected so that the user can copy it.
      if (keyRef.current) window.getSelection()?.selectAllChildren(keyRef.current);
      setStatus(text.failed);
    }
  };

  return (
    <>
      <code ref={keyRef} className="secret" translate="no">
        {groups(secret).map(({ at, text: group }) => (
          <span key={at} className="secret-group">
            {group}
          </span>
        ))}
      </code>
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

export default island("CopySecret", CopySecret);
