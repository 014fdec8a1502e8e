import { z } from "zod/mini";
import { SignIn } from "../../pages/SignIn";
import { brandById } from "../../themes/brands";
import type { AppContext } from "../context";
import { reportUnexpected } from "../errorReporting";
import { clientIdFor } from "../flow/clientId";
import { loginStep } from "../flow/continueLogin";
import { passkeyPolicy, passkeyRequired } from "../flow/passkeys";
import { systemTransferNotice } from "../flow/systemTransfer";
import { brandRules, ruleField } from "../formFields";
import { failure, isRefusal, isSystemTransfer } from "../identity/outcomes";
import { assertionCredentialSchema, passkeyAssertionOptions, passkeyAssertionResult } from "../identity/passkeys";
import { continueTo } from "../identity/redirects";
import { logEvent } from "../log";
import { bounded } from "../queryParams";
import { normalisedSubject } from "../rateLimit";
import { formStep, type ScreenLoader } from "../routeKinds";
import { clearSealed, deviceId, readSealed, writeSealed } from "../session/cookies";
import { sha256Hex } from "../session/digest";

// SPEC §2 SignIn, §4: login ID and password. Reached from the OAuth2 server's login URL (the sign-in cookie)
// or from sign-up's 'already have an account' link (the sign-up cookie holds the same challenge).

interface SignInState {
  loginChallenge: string;
  clientId: string | undefined;
  /** docs/passkeys.md "Step-up": a password cannot complete this login. */
  passkeyOnly: boolean;
}

const signInScreen: ScreenLoader<SignInState> = async (c) => {
  const [signIn, signUp, authRequest] = await Promise.all([
    readSealed(c, "signIn"),
    readSealed(c, "signUp"),
    readSealed(c, "authRequest"),
  ]);
  const loginChallenge = signIn?.loginChallenge ?? signUp?.loginChallenge;
  if (!loginChallenge) return undefined;
  const clientId = clientIdFor(c, authRequest);
  const username = authRequest?.query.autoFillUserName ?? signIn?.username;
  const brand = c.get("brand");
  const passkeys = passkeyPolicy(c.env, brand) !== "off";
  const passkeyOnly = passkeyRequired(c.env, brand, authRequest);
  return {
    state: { loginChallenge, clientId, passkeyOnly },
    page: <SignIn clientId={clientId} username={username} passkeys={passkeys} passkeyOnly={passkeyOnly} />,
  };
};

export const signIn = formStep({
  screen: signInScreen,
  form: (c: AppContext) => z.object({ username: ruleField("loginId"), password: ruleField("password", brandRules(c)) }),
  subject: ({ form }) => normalisedSubject(form.username),
  submit: (c, { state, form, show }) =>
    // Refused before the upstream is asked: a password login never claims phr, so it could not give the app what it
    // asked for (docs/passkeys.md, "Step-up").
    state.passkeyOnly
      ? show({ modal: "passkeyRequired" })
      : loginStep(
          c,
          { loginChallenge: state.loginChallenge, username: form.username },
          { flow: "email_password", ...form },
          show,
          (outcome) => {
            if (isSystemTransfer(outcome)) return systemTransferNotice(c, state.clientId, form.username, show);
            // A locked account answers exactly like a wrong password (SPEC §8 failed login).
            if (isRefusal(outcome)) return show({ modal: "loginFailed" });
            return undefined;
          },
        ),
});

// docs/passkeys.md: sign-in with a passkey, bound to the login challenge of this browser's sign-in. The island on
// /signIn asks for the ceremony's options (JSON, same origin only), the browser signs, and the form posts the
// credential; the upstream's single-use ceremony session stays in the sealed sign-in cookie.

/** Whether this browser's sign-in is for a brand (its app's) on which passkeys are on, in this environment. */
async function passkeySignIn(c: AppContext) {
  const [signIn, authRequest] = await Promise.all([readSealed(c, "signIn"), readSealed(c, "authRequest")]);
  const brand = authRequest ? brandById(authRequest.serviceId) : undefined;
  if (!signIn || !brand || passkeyPolicy(c.env, brand) === "off") return undefined;
  return signIn;
}

/**
 * POST /signIn/passkey/options: a new ceremony for this browser's login challenge. Same-origin fetches only (a page
 * elsewhere cannot start one in this browser); the options are the same for everyone and name no account.
 */
export async function passkeyOptions(c: AppContext): Promise<Response> {
  if (c.req.header("sec-fetch-site") !== "same-origin") return c.json({ type: "forbidden" }, 403);
  const signIn = await passkeySignIn(c);
  if (!signIn) return c.json({ type: "not_found" }, 404);
  const outcome = await passkeyAssertionOptions(c, signIn.loginChallenge);
  if (!outcome.ok) return c.json({ type: "unavailable" }, outcome.unavailable || outcome.status >= 500 ? 502 : 409);
  const { session, ...publicKey } = outcome.data;
  await writeSealed(c, "signIn", { ...signIn, passkey: { session } });
  c.header("Cache-Control", "no-store");
  return c.json({ publicKey });
}

/** The credential as the form posts it: `PublicKeyCredential.toJSON()`, at most 12 KB. */
const credentialField = bounded(2, 12_288).check(
  z.refine((text) => {
    try {
      return assertionCredentialSchema.safeParse(JSON.parse(text)).success;
    } catch {
      return false;
    }
  }),
);

/** POST /signIn/passkey: the signed assertion; counted per IP and per credential (docs/security.md, "Rate limits"). */
export const signInPasskey = formStep({
  screen: async (c, posted) => ((await passkeySignIn(c)) ? signInScreen(c, posted) : undefined),
  form: () => z.object({ credential: credentialField }),
  subject: ({ form }) => `passkey:${assertionCredentialSchema.parse(JSON.parse(form.credential)).id}`,
  submit: async (c, { state, form, show }) => {
    const signIn = await readSealed(c, "signIn");
    const credential = assertionCredentialSchema.parse(JSON.parse(form.credential));
    // The ceremony is used once, right or wrong: the next try asks for new options.
    const session = signIn?.passkey?.session;
    if (signIn) await writeSealed(c, "signIn", { loginChallenge: signIn.loginChallenge, username: signIn.username });
    if (!session) return show({ modal: "passkeyFailed" });
    const outcome = await passkeyAssertionResult(
      c,
      { loginChallenge: state.loginChallenge, session, deviceId: deviceId(c) },
      credential,
    );
    if (outcome.ok) {
      // Set before continueTo builds its response: headers added to the context afterwards would not reach it.
      clearSealed(c, "signIn");
      return continueTo(c, outcome.data.redirect_to, show);
    }
    // An account in system transfer (SPEC §8): elsewhere the notice; on the transfer's brand the password sign-in
    // sends the initiation mail, so the user is sent there.
    if (isSystemTransfer(outcome))
      return show({ modal: c.get("brand").transfer ? "passkeyFailed" : "transferElsewhere" });
    const type = outcome.problem.type;
    if (type === "cloned_authenticator") {
      // Logs and reports name the credential by its digest only (issue 21, attack surface).
      const credentialDigest = (await sha256Hex(credential.id)).slice(0, 16);
      logEvent("warn", "passkey_cloned", { requestId: c.get("requestId"), credentialDigest });
      reportUnexpected(c, "a cloned passkey authenticator was refused", { credentialDigest });
      return show({ modal: "passkeySuspended" });
    }
    if (type === "invalid_credential" || type === "ceremony_expired") return show({ modal: "passkeyFailed" });
    return show(failure(outcome));
  },
});
