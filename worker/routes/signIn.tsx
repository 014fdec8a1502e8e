import { z } from "zod/mini";
import { SignIn } from "../../pages/SignIn";
import { brandById } from "../../themes/brands";
import type { AppContext } from "../context";
import { reportUnexpected } from "../errorReporting";
import { clientIdFor } from "../flow/clientId";
import { loginStep } from "../flow/continueLogin";
import { loginContext } from "../flow/loginContext";
import { answerAssertionOptions, fromOwnPage } from "../flow/passkeyOptions";
import { passkeyPolicy, passkeyRequired, webAuthnRefused } from "../flow/passkeys";
import { systemTransferNotice } from "../flow/systemTransfer";
import { jsonField, ruleField } from "../formFields";
import { failure, isRefusal, isSystemTransfer } from "../identity/outcomes";
import { assertionCredentialSchema, passkeyAssertionResult } from "../identity/passkeys";
import { isLeaked } from "../identity/pwnedPasswords";
import { continueTo } from "../identity/redirects";
import { logEvent } from "../log";
import { normalisedSubject } from "../rateLimit";
import { formStep, type Screen, type ScreenLoader } from "../routeKinds";
import type { AuthRequest } from "../session/authRequest";
import { clearSealed, deviceId, readSealed, writeSealed } from "../session/cookies";
import { sha256Hex } from "../session/digest";

// product §2 SignIn, §4: login ID and password. Reached from the OAuth2 server's login URL (the sign-in cookie)
// or from sign-up's 'already have an account' link (the sign-up cookie holds the same challenge).

interface SignInState {
  loginChallenge: string;
  clientId: string | undefined;
  /** docs/passkeys.md "Step-up": a password cannot complete this login. */
  passkeyOnly: boolean;
}

/** The journey state the sign-in screens read, each cookie opened once per request. */
async function signInCookies(c: AppContext) {
  const [signIn, signUp, authRequest] = await Promise.all([
    readSealed(c, "signIn"),
    readSealed(c, "signUp"),
    readSealed(c, "authRequest"),
  ]);
  return { signIn, signUp, authRequest };
}

function signInScreenOf(
  c: AppContext,
  { signIn, signUp, authRequest }: Awaited<ReturnType<typeof signInCookies>>,
): Screen<SignInState> | undefined {
  const loginChallenge = signIn?.loginChallenge ?? signUp?.loginChallenge;
  if (!loginChallenge) return undefined;
  const clientId = clientIdFor(c, authRequest);
  const username = authRequest?.query.autoFillUserName ?? signIn?.username;
  const brand = c.get("brand");
  const passkeys = passkeyPolicy(c.env, brand) !== "off" && !webAuthnRefused(c);
  const passkeyOnly = passkeyRequired(c.env, brand, authRequest);
  return {
    state: { loginChallenge, clientId, passkeyOnly },
    page: <SignIn clientId={clientId} username={username} passkeys={passkeys} passkeyOnly={passkeyOnly} />,
  };
}

const signInScreen: ScreenLoader<SignInState> = async (c) => signInScreenOf(c, await signInCookies(c));

export const signIn = formStep({
  screen: signInScreen,
  form: (rules) =>
    z.object({
      username: ruleField("loginId"),
      password: ruleField("password", rules),
      // The passkey island's mark: this browser can make a passkey (the enrolment may follow the login).
      webauthn: z.optional(z.literal("1")),
    }),
  subject: ({ form }) => normalisedSubject(form.username),
  submit: async (c, { state, form, show }) => {
    // Refused before the upstream is asked: a password login never claims phr, so it could not give the app what it
    // asked for (docs/passkeys.md, "Step-up").
    if (state.passkeyOnly) return show({ modal: "passkeyRequired" });
    // NIST SP 800-63B-4 §3.1.1.2: a password known to have leaked must change. Only the upstream knows whether it is
    // the right one, so the site says what it found and a right one goes on to the forced new password.
    const leaked = await isLeaked(c, form.password);
    return loginStep(
      c,
      { loginChallenge: state.loginChallenge, username: form.username, webauthn: form.webauthn === "1" },
      {
        flow: "email_password",
        username: form.username,
        password: form.password,
        ...(leaked ? { password_leaked: true } : {}),
      },
      show,
      (outcome) => {
        if (isSystemTransfer(outcome)) return systemTransferNotice(c, state.clientId, form.username, show);
        // A locked account answers exactly like a wrong password (product §8 failed login).
        if (isRefusal(outcome)) return show({ modal: "loginFailed" });
        return undefined;
      },
    );
  },
});

// docs/passkeys.md: sign-in with a passkey, bound to the login challenge of this browser's sign-in. The island on
// /signIn asks for the ceremony's options (JSON, same origin only), the browser signs, and the form posts the
// credential; the upstream's single-use ceremony session stays in the sealed sign-in cookie.

/** Whether passkeys are on for the brand of this browser's sign-in (its app's), in this environment. */
function passkeysOn(c: AppContext, authRequest: AuthRequest | undefined): boolean {
  const brand = authRequest ? brandById(authRequest.serviceId) : undefined;
  return brand !== undefined && passkeyPolicy(c.env, brand) !== "off";
}

/**
 * POST /signIn/passkey/options: a new ceremony for this browser's login challenge. Same-origin fetches only (a page
 * elsewhere cannot start one in this browser); the options are the same for everyone and name no account.
 */
export async function passkeyOptions(c: AppContext): Promise<Response> {
  if (!fromOwnPage(c)) return c.json({ type: "forbidden" }, 403);
  const [signIn, authRequest] = await Promise.all([readSealed(c, "signIn"), readSealed(c, "authRequest")]);
  if (!signIn || !passkeysOn(c, authRequest)) return c.json({ type: "not_found" }, 404);
  return answerAssertionOptions(c, signIn.loginChallenge, (session) =>
    writeSealed(c, "signIn", { ...signIn, passkey: { session } }),
  );
}

/** The credential as the form posts it: `PublicKeyCredential.toJSON()`, at most 12 KB. */
const credentialField = jsonField(assertionCredentialSchema, 12_288);

/** POST /signIn/passkey: the signed assertion; counted per IP and per credential (docs/security.md, "Rate limits"). */
export const signInPasskey = formStep({
  screen: async (c) => {
    const cookies = await signInCookies(c);
    const { signIn } = cookies;
    if (!signIn || !passkeysOn(c, cookies.authRequest)) return undefined;
    const screen = signInScreenOf(c, cookies);
    return screen && { ...screen, state: { ...screen.state, signIn, view: cookies.authRequest?.query.view } };
  },
  form: () => z.object({ credential: credentialField }),
  subject: ({ form }) => `passkey:${form.credential.id}`,
  submit: async (c, { state, form, show }) => {
    const { signIn } = state;
    // The ceremony is used once, right or wrong: the next try asks for new options.
    const session = signIn.passkey?.session;
    await writeSealed(c, "signIn", { loginChallenge: signIn.loginChallenge, username: signIn.username });
    if (!session) return show({ modal: "passkeyFailed" });
    const outcome = await passkeyAssertionResult(
      c,
      { loginChallenge: signIn.loginChallenge, session, deviceId: deviceId(c) },
      form.credential,
      await loginContext(c),
    );
    if (outcome.ok) {
      // Adoption, counted by operators (docs/runbook.md): the brand, the view the app opened, and whether only a
      // passkey could complete this login (a step-up, or a brand that requires passkeys).
      logEvent("info", "passkey_signed_in", {
        requestId: c.get("requestId"),
        brand: c.get("brand").id,
        view: state.view,
        passkeyOnly: state.passkeyOnly,
      });
      // Set before continueTo builds its response: headers added to the context afterwards would not reach it.
      clearSealed(c, "signIn");
      return continueTo(c, outcome.data.redirect_to, show);
    }
    // An account in system transfer (product §8): elsewhere the notice; on the transfer's brand the password sign-in
    // sends the initiation mail, so the user is sent there.
    if (isSystemTransfer(outcome))
      return show({ modal: c.get("brand").transfer ? "passkeyFailed" : "transferElsewhere" });
    const type = outcome.problem.type;
    if (type === "cloned_authenticator") {
      // Logs and reports name the credential by its digest only: a log reader never learns an id that signs in.
      const credentialDigest = (await sha256Hex(form.credential.id)).slice(0, 16);
      logEvent("warn", "passkey_cloned", { requestId: c.get("requestId"), credentialDigest });
      reportUnexpected(c, "a cloned passkey authenticator was refused", { credentialDigest });
      return show({ modal: "passkeySuspended" });
    }
    if (type === "invalid_credential" || type === "ceremony_expired") return show({ modal: "passkeyFailed" });
    return show(failure(outcome));
  },
});
