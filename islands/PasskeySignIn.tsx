import { useEffect, useState } from "react";
import type { RequestOptionsJSON } from "./webauthnJson";

export interface PasskeySignInProps {
  /** The button's words (messages/ja.ts `buttonLabels.passkeyLogIn`), from the server. */
  label: string;
  /** The id of the login ID input, which offers the passkey in its autofill where the browser can; none, no autofill. */
  usernameId?: string;
  /** The id of the password form, which then tells the worker that this browser can make a passkey (enrolment). */
  passwordFormId?: string;
}

/** The ceremony in flight (one island per page): a new one, the button's, replaces the autofill's. */
let pending: AbortController | undefined;

/**
 * Asks for options, lets the browser sign, and posts the credential with the form around the island (its
 * `passkey-form`): the sign-in's `/signIn/passkey`, or an operation's approval (docs/operations.md, "On the site"),
 * whose options are at the form's address and `/options`.
 */
async function signIn(mediation?: CredentialMediationRequirement): Promise<void> {
  pending?.abort();
  const controller = new AbortController();
  pending = controller;
  const form = document.querySelector<HTMLFormElement>("form.passkey-form");
  const action = form?.getAttribute("action");
  try {
    const response = await fetch(`${action}/options`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    // No ceremony for this browser (404) or refused: nothing to sign, the password form stays.
    if (!response.ok) return;
    // What the options route answers (worker/flow/passkeyOptions.ts).
    const { publicKey } = (await response.json()) as { publicKey: RequestOptionsJSON };
    // The engine reads and writes WebAuthn's JSON itself; one that lacks either (older engines) loads the module
    // that does it instead, so that only such a browser fetches it.
    const api = PublicKeyCredential;
    const json =
      "parseRequestOptionsFromJSON" in api && "toJSON" in api.prototype ? undefined : await import("./webauthnJson");
    const credential = await navigator.credentials.get({
      publicKey: json ? json.requestOptionsFromJson(publicKey) : api.parseRequestOptionsFromJSON(publicKey),
      signal: controller.signal,
      // Undefined is no mediation given: the browser's default.
      mediation,
    });
    const field = form?.elements.namedItem("credential");
    if (!(credential instanceof PublicKeyCredential) || !form || !(field instanceof HTMLInputElement)) return;
    // `JSON.stringify()` takes the credential's own `toJSON()`.
    field.value = JSON.stringify(json ? json.assertionJson(credential) : credential);
    form.submit();
  } catch {
    // Cancelled, timed out, or replaced by the button's own request: the password form is still there.
  }
}

/**
 * docs/passkeys.md: sign-in with a passkey, shown only where the browser (or the app's webview) says a platform
 * authenticator with user verification is there. The login ID field then offers the passkey in its autofill
 * (conditional mediation), and the button starts the ceremony at once. The signed credential is posted by the form
 * around this island (pages/SignIn.tsx; pages/OperationConfirmation.tsx, which has no login ID field and so no
 * autofill request). Without script, or where WebAuthn does not work, nothing shows.
 */
export default function PasskeySignIn({ label, usernameId, passwordFormId }: PasskeySignInProps) {
  const [available, setAvailable] = useState(false);

  useEffect(() => {
    const api = window.PublicKeyCredential;
    void api?.isUserVerifyingPlatformAuthenticatorAvailable?.().then(async (platform) => {
      if (!platform) return;
      setAvailable(true);
      const field = usernameId && document.getElementById(usernameId);
      if (!field || !(await api.isConditionalMediationAvailable?.())) return;
      field.setAttribute("autocomplete", "username webauthn");
      void signIn("conditional");
    });
    return () => pending?.abort();
  }, [usernameId]);

  // Not rendered until the browser has said yes: a `hidden` button would still show where the button's CSS sets
  // its display. The hidden field belongs to the password form (its `form` attribute): a password sign-in from this
  // browser may be offered the enrolment screen (docs/passkeys.md, "Enrolment"); without one, the approval ignores it.
  return available ? (
    <>
      <input type="hidden" name="webauthn" value="1" form={passwordFormId} />
      <button type="button" className="button button--secondary" onClick={() => void signIn()}>
        {label}
      </button>
    </>
  ) : null;
}
