import { useRef, useState } from "react";
import type { CreationOptionsJSON } from "./webauthnJson";

export interface PasskeyCreateProps {
  /** The button's words (messages/ja.ts `buttonLabels.createPasskey`), from the server. */
  label: string;
}

/** POST /passkey/registration/options (worker/flow/passkeyRegistration.ts): this browser's ceremony, same origin. */
const OPTIONS_PATH = "/passkey/registration/options";

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
      const response = await fetch(OPTIONS_PATH, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
      // No ceremony for this browser (404, spent or expired) or refused: the button stays for another try.
      if (!response.ok) return;
      const { publicKey } = (await response.json()) as { publicKey: CreationOptionsJSON };
      // The engine reads and writes WebAuthn's JSON itself; one that lacks either (older engines) loads the module
      // that does it instead, so that only such a browser fetches it.
      const api = PublicKeyCredential;
      const json =
        "parseCreationOptionsFromJSON" in api && "toJSON" in api.prototype ? undefined : await import("./webauthnJson");
      const credential = await navigator.credentials.create({
        publicKey: json ? json.creationOptionsFromJson(publicKey) : api.parseCreationOptionsFromJSON(publicKey),
      });
      const form = button.current?.closest("form");
      const field = form?.elements.namedItem("credential");
      if (!(credential instanceof PublicKeyCredential) || !form || !(field instanceof HTMLInputElement)) return;
      // `JSON.stringify()` takes the credential's own `toJSON()`.
      field.value = JSON.stringify(json ? json.attestationJson(credential) : credential);
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
