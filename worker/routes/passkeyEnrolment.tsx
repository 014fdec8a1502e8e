import { z } from "zod/mini";
import type { PasskeyRegistrationStage } from "../../pages/layout/PasskeyCreateForm";
import { ENROLMENT_PATH, PasskeyEnrolment } from "../../pages/PasskeyEnrolment";
import type { AppContext } from "../context";
import {
  finishRegistration,
  logRegistration,
  newCredentialField,
  registrationFailure,
  registrationFor,
  showCodeRefusal,
  startRegistration,
} from "../flow/passkeyRegistration";
import { ENROLMENT_SECONDS, passkeyPolicy, postponeEnrolment } from "../flow/passkeys";
import { emptyForm, ruleField } from "../formFields";
import { failure } from "../identity/outcomes";
import { passkeyRegistrationCode } from "../identity/passkeys";
import { allowedRedirect, continueTo } from "../identity/redirects";
import { normalisedSubject } from "../rateLimit";
import { parameterProblem, renderPage, type Show } from "../render";
import { formStep, type ScreenLoader } from "../routeKinds";
import { clearSealed, readSealed, writeSealed } from "../session/cookies";
import { sha256Hex } from "../session/digest";
import type { PasskeyRegistration, SignInSession } from "../session/state";

// docs/passkeys.md "Enrolment": after a password sign-in the login is accepted, and before the browser goes on to
// the OAuth2 server's redirect_to the site offers a passkey. It is registered with the login's single-use ticket
// (the site holds no bearer token during an app's sign-in) and a code mailed to the account. 'Later', or a ticket the
// upstream no longer takes, goes on to redirect_to as the login would have.

type Enrolment = NonNullable<SignInSession["enrolment"]>;
interface EnrolmentState {
  signIn: SignInSession & { enrolment: Enrolment };
  /** Whose registration the ceremony cookie may hold: this ticket's, by its digest. */
  owner: string;
  /** This ticket's ceremony, ready for the browser's credential. */
  registration: PasskeyRegistration | undefined;
}

const enrolmentScreen: ScreenLoader<EnrolmentState> = async (c) => {
  const signIn = await readSealed(c, "signIn");
  const enrolment = signIn?.enrolment;
  // Passkeys switched off meanwhile: no passkey call (the login is accepted; the app restarts it).
  if (!signIn || !enrolment || passkeyPolicy(c.env, c.get("brand")) === "off") return undefined;
  const owner = `ticket:${(await sha256Hex(enrolment.ticket)).slice(0, 32)}`;
  const registration = await registrationFor(c, owner);
  let stage: PasskeyRegistrationStage = "start";
  if (registration) stage = "create";
  else if (enrolment.codeSent) stage = "code";
  return {
    state: { signIn: { ...signIn, enrolment }, owner, registration },
    page: <PasskeyEnrolment stage={stage} />,
  };
};

const ticketOf = (state: EnrolmentState) => ({ enrolmentTicket: state.signIn.enrolment.ticket });
/** Mails and codes are about the account that signed in: counted by its login ID. */
const subject = ({ state }: { state: EnrolmentState }) => normalisedSubject(state.signIn.username ?? "");

/**
 * On to the app: the login is accepted, whatever became of the passkey. The offer checked the redirect against this
 * origin before it wrote the state (flow/passkeys.ts), so one not allowed here is a state sealed for another origin
 * (a replayed cookie): a bad journey state, the parameter modal (400), not the 502 of an upstream's refused redirect.
 */
function goOn(c: AppContext, state: EnrolmentState, show: Show) {
  clearSealed(c, "signIn");
  clearSealed(c, "passkeyRegistration");
  const { redirectTo } = state.signIn.enrolment;
  return allowedRedirect(c, redirectTo) ? continueTo(c, redirectTo, show) : parameterProblem(c);
}

/** A refusal that means the ticket is gone (expired or used): nothing more to enrol with, so on to the app. */
const ticketGone = (outcome: { ok: boolean; status: number; unavailable?: unknown }) =>
  !outcome.ok && !outcome.unavailable && outcome.status === 401;

export const enrolment = { screen: enrolmentScreen };

/** POST …/code: mails (again) the code that a registration after a password login needs. */
export const enrolmentCode = formStep({
  screen: enrolmentScreen,
  form: emptyForm,
  subject,
  submit: async (c, { state, show }) => {
    const outcome = await passkeyRegistrationCode(c, ticketOf(state));
    if (ticketGone(outcome)) return goOn(c, state, show);
    if (!outcome.ok) return show(failure(outcome));
    const signIn = { ...state.signIn, enrolment: { ...state.signIn.enrolment, codeSent: true } };
    // The ticket lives 10 minutes from the login: so does the cookie that holds it (flow/passkeys.ts).
    await writeSealed(c, "signIn", signIn, ENROLMENT_SECONDS);
    // A new code spends the ceremony of the last one.
    clearSealed(c, "passkeyRegistration");
    return c.redirect(ENROLMENT_PATH, 303);
  },
});

/** POST …/verify: the mailed code opens the ceremony the island then asks the browser to sign. */
export const enrolmentVerify = formStep({
  screen: enrolmentScreen,
  form: () => z.object({ code: ruleField("code") }),
  subject,
  submit: async (c, { state, form, show }) => {
    const outcome = await startRegistration(c, ticketOf(state), state.owner, form.code);
    if (outcome.ok) return c.redirect(ENROLMENT_PATH, 303);
    if (ticketGone(outcome)) return goOn(c, state, show);
    const refused = showCodeRefusal(outcome, show);
    if (refused) return refused;
    return show(failure(outcome));
  },
});

/** POST /signIn/passkey/enrol: the new credential; registered, on to the app. */
export const enrolmentResult = formStep({
  screen: enrolmentScreen,
  form: () => z.object({ credential: newCredentialField }),
  subject,
  submit: async (c, { state, form, show }) => {
    const outcome = await finishRegistration(c, ticketOf(state), state.registration, form.credential);
    if (outcome?.ok) logRegistration(c, "enrolment");
    if (outcome?.ok || (outcome && ticketGone(outcome))) return goOn(c, state, show);
    // The ceremony is spent: the code step again, for a new code and a new ceremony.
    return renderPage(c, <PasskeyEnrolment stage="code" />, registrationFailure(outcome));
  },
});

/** POST …/later: no passkey now, and not asked again in this browser for 14 days. */
export const enrolmentLater = formStep({
  screen: enrolmentScreen,
  form: emptyForm,
  submit: (c, { state, show }) => {
    postponeEnrolment(c);
    return goOn(c, state, show);
  },
});
