import { useRef, useState } from "react";
import { fromBase64url, toBase64url } from "./webauthnJson";

export interface PasskeyCreateProps {
  /** The button's words (messages/ja.ts `buttonLabels.createPasskey`), from the server. */
  label: string;
}

/** POST /passkey/registration/options (worker/flow/passkeyRegistration.ts): this browser's ceremony, same origin. */
const OPTIONS_PATH = "/passkey/registration/options";

/** What the options endpoint answers: `PublicKeyCredentialCreationOptionsJSON`, binary fields as base64url. */
interface CreationOptionsJSON
  extends Omit<PublicKeyCredentialCreationOptions, "challenge" | "user" | "excludeCredentials"> {
  challenge: string;
  user: { id: string; name: string; displayName: string };
  excludeCredentials?: { id: string; type: "public-key"; transports?: AuthenticatorTransport[] }[];
}

async function creationOptions(): Promise<PublicKeyCredentialCreationOptions> {
  const response = await fetch(OPTIONS_PATH, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  if (!response.ok) throw new Error(`passkey registration options: ${response.status}`);
  const { publicKey } = (await response.json()) as { publicKey: CreationOptionsJSON };
  return {
    ...publicKey,
    challenge: fromBase64url(publicKey.challenge),
    user: { ...publicKey.user, id: fromBase64url(publicKey.user.id) },
    excludeCredentials: (publicKey.excludeCredentials ?? []).map((known) => ({
      ...known,
      id: fromBase64url(known.id),
    })),
  };
}

/** `PublicKeyCredential.toJSON()` of a new credential, which older engines lack. */
function asJson(credential: PublicKeyCredential): string {
  const response = credential.response as AuthenticatorAttestationResponse;
  return JSON.stringify({
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: toBase64url(response.clientDataJSON),
      attestationObject: toBase64url(response.attestationObject),
      transports: response.getTransports?.() ?? [],
    },
    clientExtensionResults: {},
    authenticatorAttachment: credential.authenticatorAttachment,
  });
}

/**
 * docs/passkeys.md "Enrolment", "Managing passkeys": makes a passkey with the ceremony the worker started after the
 * mailed code, and posts it with the form around this island (its hidden `credential` field). Cancelled or failed,
 * the button stays for another try; the ceremony lives 5 minutes.
 */
export default function PasskeyCreate({ label }: PasskeyCreateProps) {
  const button = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);

  async function create() {
    setBusy(true);
    try {
      const publicKey = await creationOptions();
      const credential = await navigator.credentials.create({ publicKey });
      const form = button.current?.closest("form");
      const field = form?.elements.namedItem("credential");
      if (!(credential instanceof PublicKeyCredential) || !form || !(field instanceof HTMLInputElement)) return;
      field.value = asJson(credential);
      form.submit();
    } catch {
      // Cancelled by the user, timed out, or no authenticator: the page stays as it was.
    } finally {
      setBusy(false);
    }
  }

  return (
    <button ref={button} type="button" className="button" disabled={busy} onClick={() => void create()}>
      {label}
    </button>
  );
}
