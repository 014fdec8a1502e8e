import { z } from "zod/mini";
import type { PasskeyRegistrationStage } from "../../pages/layout/PasskeyCreateForm";
import { MfaSetupDone, MfaSetupPasskey, PASSKEY_SETUP_PATH } from "../../pages/MfaSetup";
import type { AppContext } from "../context";
import { accountFailure, accountSubject } from "../flow/account";
import {
  finishRegistration,
  logRegistration,
  newCredentialField,
  registrationFailure,
  registrationFor,
  showCodeRefusal,
  startRegistration,
} from "../flow/passkeyRegistration";
import { passkeyPolicy, webAuthnRefused } from "../flow/passkeys";
import { stepUp } from "../flow/recentSignIn";
import { nextAfterSetup, signedIn } from "../flow/signedIn";
import { emptyForm, ruleField } from "../formFields";
import type { CallResult } from "../identity/client";
import { refusedAs } from "../identity/outcomes";
import { passkeyRegistrationCode, type Registrant } from "../identity/passkeys";
import { renderPage, type Show } from "../render";
import { formStep, type ScreenLoader } from "../routeKinds";
import { clearSealed, readSealed } from "../session/cookies";
import type { PasskeyRegistration, TokenState } from "../session/state";

// docs/passkeys.md "Passkey first": a passkey as the second factor, on the step after sign-up and in the own view
// `mfaSetUp`. Right after a sign-up, the sign-up's ticket registers it with no further mailed code (its code has just
// proven the mailbox); otherwise the signed-in user's bearer token and a code mailed to the account, as on /passkeys.

interface PasskeySetupState {
  tokens: TokenState;
  /** The sign-up's ticket when this browser holds one for this user (no mailed code), else the bearer token. */
  registrant: Registrant;
  owner: string;
  /** This user's ceremony, ready for the browser's credential. */
  registration: PasskeyRegistration | undefined;
}

export const passkeySetupQuery = z.object({ step: z.optional(z.literal("code")) });

async function loadSetup(c: AppContext, stage: PasskeyRegistrationStage): ReturnType<ScreenLoader<PasskeySetupState>> {
  // Passkeys off here, or the app's webview cannot use them: no passkey call, and the choice never offered one.
  if (passkeyPolicy(c.env, c.get("brand")) === "off" || webAuthnRefused(c)) return undefined;
  const tokens = await signedIn(c);
  if (!tokens || "refuse" in tokens) return tokens;
  const signUp = await readSealed(c, "signUpPasskey");
  // A ticket of another user's sign-up in this browser is not this user's authority.
  const ticket = signUp?.hashedUserName === tokens.hashedUserName ? signUp.ticket : undefined;
  const owner = `mfa:${accountSubject(tokens)}`;
  const registration = await registrationFor(c, owner);
  const state: PasskeySetupState = {
    tokens,
    registrant: ticket ? { enrolmentTicket: ticket } : { bearer: tokens.accessToken },
    owner,
    registration,
  };
  return { state, page: <MfaSetupPasskey stage={registration ? "create" : stage} /> };
}

/** GET /mfa/setup/passkey: where the registration stands (`?step=code` once a code was mailed). */
export const passkeySetup = {
  screen: (c: AppContext, query: z.infer<typeof passkeySetupQuery>) =>
    loadSetup(c, query.step === "code" ? "code" : "start"),
};

const setupScreen = (c: AppContext) => loadSetup(c, "start");
const subject = ({ state }: { state: PasskeySetupState }) => accountSubject(state.tokens);
const toStage = (c: AppContext, query = "") => c.redirect(`${PASSKEY_SETUP_PATH}${query}`, 303);
/** The registration goes with the sign-up's ticket, which needs no mailed code. */
const bySignUpTicket = (state: PasskeySetupState) => "enrolmentTicket" in state.registrant;

/** Mails the code a registration with the bearer token needs (again: a new code spends the last ceremony). */
async function mailCode(c: AppContext, registrant: Registrant, show: Show): Promise<Response> {
  const outcome = await passkeyRegistrationCode(c, registrant);
  if (!outcome.ok) return show(accountFailure(outcome));
  clearSealed(c, "passkeyRegistration");
  return toStage(c, "?step=code");
}

/**
 * The answer to `/attestation/options`: the ceremony ready (the island's step), a sign-in too old for the upstream's
 * 5-minute rule (a step-up, back to this view), or undefined for the caller's own handling.
 */
function afterOptions(c: AppContext, outcome: CallResult<unknown>): Response | Promise<Response> | undefined {
  if (outcome.ok) return toStage(c);
  if (refusedAs(outcome, "reauthentication_required")) return stepUp(c, "mfaSetUp");
  return undefined;
}

/**
 * POST /mfa/setup/passkey/start, the choice's button: with the sign-up's ticket the ceremony starts at once; without
 * it (or where the upstream still asks for one) a code is mailed to the account first.
 */
export const passkeySetupStart = formStep({
  screen: setupScreen,
  form: emptyForm,
  subject,
  submit: async (c, { state, show }) => {
    if (!bySignUpTicket(state)) return mailCode(c, state.registrant, show);
    const outcome = await startRegistration(c, state.registrant, state.owner, undefined);
    const next = afterOptions(c, outcome);
    if (next) return next;
    // The ticket spent or expired (401), or an upstream that wants a code with it after all: the bearer token and a
    // mailed code, as for anyone signed in.
    if (outcome.ok || outcome.unavailable || (outcome.status !== 401 && !refusedAs(outcome, "email_code_required")))
      return show(accountFailure(outcome));
    clearSealed(c, "signUpPasskey");
    return mailCode(c, { bearer: state.tokens.accessToken }, show);
  },
});

/** POST /mfa/setup/passkey/code: another code. */
export const passkeySetupCode = formStep({
  screen: (c) => loadSetup(c, "code"),
  form: emptyForm,
  subject,
  submit: (c, { state, show }) => mailCode(c, state.registrant, show),
});

/** POST /mfa/setup/passkey/verify: the mailed code opens the ceremony the island asks the browser to sign. */
export const passkeySetupVerify = formStep({
  screen: (c) => loadSetup(c, "code"),
  form: () => z.object({ code: ruleField("code") }),
  subject,
  submit: async (c, { state, form, show }) => {
    const outcome = await startRegistration(c, state.registrant, state.owner, form.code);
    const next = afterOptions(c, outcome);
    if (next) return next;
    const refused = showCodeRefusal(outcome, show);
    if (refused) return refused;
    return show(accountFailure(outcome));
  },
});

/**
 * POST /mfa/setup/passkey: the new credential. Registered (the account is mailed), the second factor is set: on to
 * the app as after an app or SMS code. Refused, the ceremony is spent: the step before it again, with why.
 */
export const passkeySetupResult = formStep({
  screen: setupScreen,
  form: () => z.object({ credential: newCredentialField }),
  subject,
  submit: async (c, { state, form }) => {
    const outcome = await finishRegistration(c, state.registrant, state.registration, form.credential);
    if (outcome?.ok) {
      logRegistration(c, bySignUpTicket(state) ? "signUp" : "mfaSetUp");
      clearSealed(c, "signUpPasskey");
      return renderPage(c, <MfaSetupDone />, { modal: { key: "passkeySetUpDone", href: await nextAfterSetup(c) } });
    }
    const page = <MfaSetupPasskey stage={bySignUpTicket(state) ? "start" : "code"} />;
    return renderPage(c, page, registrationFailure(outcome));
  },
});
