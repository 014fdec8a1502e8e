import { z } from "zod/mini";
import {
  type AuthorizationDetail,
  type AuthorizationDetailsType,
  authorizationDetailsSchema,
} from "../../forms/authorizationDetails";
import { OPERATION_PATH, type OperationCodeStep, OperationConfirmation } from "../../pages/OperationConfirmation";
import { brandForClientId, registeredRedirectUris } from "../../themes/brands";
import type { AppContext } from "../context";
import { reportUnexpected } from "../errorReporting";
import { allowFormActionTo } from "../flow/authorization";
import { logDeviceConfirmation } from "../flow/continueLogin";
import { loginUrlQuery } from "../flow/loginChallenge";
import { loginContext } from "../flow/loginContext";
import { answerAssertionOptions, fromOwnPage } from "../flow/passkeyOptions";
import { passkeyPolicy, webAuthnRefused } from "../flow/passkeys";
import { jsonField, ruleField } from "../formFields";
import { authorize, type CallResult, type LoginResponse, login, loginRequest, rejectLogin } from "../identity/client";
import { failure, isRefusal, modalForFailure, refusedAs } from "../identity/outcomes";
import { assertionCredentialSchema, passkeyAssertionResult } from "../identity/passkeys";
import { continueTo } from "../identity/redirects";
import { logEvent } from "../log";
import { bounded, queryValue } from "../queryParams";
import { normalisedSubject } from "../rateLimit";
import { errorPage, parameterProblem, renderPage, type Show } from "../render";
import { formStep, type Refusal, type ScreenLoader } from "../routeKinds";
import { appAuthQuerySchema } from "../session/authRequest";
import { clearSealed, deviceId, readSealed, writeSealed } from "../session/cookies";
import { sha256Hex } from "../session/digest";
import type { OperationState } from "../session/state";

// docs/operations.md "On the site": an operation (a withdrawal, a bank-account change, a contact change) that the
// app's server pushed (RFC 9126) as RFC 9396 authorization_details. The app opens `/{serviceId}/auth` with its
// client_id and request_uri alone; the site asks the authorization endpoint with exactly those, reads the login
// request's details and answers the confirmation screen itself. The passkey signs a challenge the upstream derives
// from those details; the site only shows them and passes the ceremony on. The operation cookie holds the login
// challenge and the client; the details and the app's redirect URI are read from the upstream each time. The cancel
// rejects the login upstream, which sends the browser back to the app with access_denied.

/** RFC 9126 §4: a pushed request's start carries its client and request_uri, and nothing else (strict). */
export const pushedRequestQuery = z.strictObject({
  client_id: queryValue,
  request_uri: bounded(1, 512).check(z.regex(/^[\x21-\x7e]+$/)),
});
export type PushedRequestQuery = z.infer<typeof pushedRequestQuery>;

/**
 * `/{serviceId}/auth`: the app's query (product §2 entry), which never names a request_uri, or a pushed request's
 * two parameters. A request_uri with any other parameter fits neither: the parameter problem.
 */
export const brandStartQuery = z.union([
  z.extend(appAuthQuerySchema, { request_uri: z.optional(z.never()) }),
  pushedRequestQuery,
]);

/** What operators count (docs/runbook.md, "Event lines"): the brand, the type, the outcome; never the details. */
type ConfirmationOutcome = "shown" | "request_uri_refused" | "approved" | "refused" | "cancelled" | "superseded";

function logConfirmation(c: AppContext, outcome: ConfirmationOutcome, type?: AuthorizationDetailsType): void {
  logEvent("info", "operation_confirmation", {
    requestId: c.get("requestId"),
    brand: c.get("brand").id,
    type,
    outcome,
  });
}

/** An operation as the upstream's login request holds it. */
interface Operation {
  detail: AuthorizationDetail;
  /**
   * The app's redirect URI, if the login request names one the brand data registers: the approval's code and the
   * cancel's error end there (CSP form-action).
   */
  redirectUri: string | undefined;
}

/** A login the upstream no longer knows (spent, expired, ended after its last try): the operation is over. */
const loginGone = (outcome: CallResult<unknown>) =>
  refusedAs(outcome, "challenge_not_found") || refusedAs(outcome, "challenge_expired");

/**
 * The operation of `loginChallenge`, from the upstream's login request (product §7 GET login): its details checked
 * by the shared schema (forms/authorizationDetails.ts), else nothing is shown (the unexpected error, reported).
 */
async function operationOf(c: AppContext, clientId: string, loginChallenge: string): Promise<Operation | Refusal> {
  const asked = await loginRequest(c, loginChallenge);
  if (!asked.ok) return { refuse: loginGone(asked) ? { modal: "operationUnavailable" } : failure(asked) };
  const parsed = authorizationDetailsSchema.safeParse(asked.data.authorization_details);
  const detail = parsed.success ? parsed.data[0] : undefined;
  if (!detail || asked.data.client_id !== clientId) {
    contractBroken(c, "the login request of a pushed operation holds no readable authorization_details", asked.status);
    return { refuse: { modal: "unexpectedError" } };
  }
  const named = new URL(asked.data.request_url).searchParams.get("redirect_uri");
  const redirectUri = registeredRedirectUris(clientId).find((uri) => uri === named);
  return { detail, redirectUri };
}

/**
 * The brand lets its customers approve with the password and a second factor for now (brand data
 * `operationConfirmation`, the JSDA guideline's temporary alternative); the upstream holds its clients to the same.
 */
const approvesByCode = (c: AppContext) => c.get("brand").operationConfirmation === "passkeyOrCode";

/** The code step of the alternative, as the page shows it. */
function codeStepOf(code: OperationState["code"]): OperationCodeStep | undefined {
  if (!code) return undefined;
  return code.flow === "device_confirmation" ? { flow: code.flow, destination: code.destination } : { flow: code.flow };
}

/**
 * The login calls answered what their contract does not allow (docs/operations.md): logged and reported, for the
 * caller to show the unexpected error.
 */
function contractBroken(c: AppContext, message: string, status: number): void {
  const path = "/auth/v1/login";
  logEvent("error", "upstream_contract_broken", { requestId: c.get("requestId"), path, status });
  reportUnexpected(c, message, { path, brand: c.get("brand").id });
}

/** The screen of an operation; its forms end at the app (the approval's code, the cancel's error) via the upstream. */
async function confirmationPage(
  c: AppContext,
  state: Pick<OperationState, "loginChallenge" | "clientId" | "code">,
  shown: Operation,
) {
  if (shown.redirectUri) allowFormActionTo(c, shown.redirectUri);
  const passkeys = passkeyPolicy(c.env, c.get("brand")) !== "off" && !webAuthnRefused(c);
  return (
    <OperationConfirmation
      detail={shown.detail}
      clientId={state.clientId}
      shown={await sha256Hex(state.loginChallenge)}
      passkeys={passkeys}
      alternative={approvesByCode(c)}
      codeStep={codeStepOf(state.code)}
    />
  );
}

/**
 * The app's start of a pushed request: the authorization endpoint asked with exactly `client_id` and `request_uri`
 * (the details never travel in a URL), its login URL's challenge kept, the login request read, the screen answered.
 * A request_uri the server refuses (RFC 9126 `invalid_request_uri`: used, expired, unknown, another client's) is the
 * operationUnavailable modal, whose way back is the app.
 */
export async function openPushedRequest(c: AppContext, query: PushedRequestQuery): Promise<Response> {
  if (brandForClientId(query.client_id)?.id !== c.get("brand").id) return parameterProblem(c);
  const pushed = new URLSearchParams({ client_id: query.client_id, request_uri: query.request_uri });
  const asked = await authorize(c, `/oauth2/auth?${pushed}`);
  const loginChallenge = asked.ok ? loginChallengeOf(c, query.client_id, asked.data.location) : undefined;
  if (loginChallenge === undefined) return refusedStart(c, asked);
  const shown = await operationOf(c, query.client_id, loginChallenge);
  if ("refuse" in shown) return errorPage(c, shown.refuse);
  const state = { loginChallenge, clientId: query.client_id };
  await writeSealed(c, "operation", state);
  logConfirmation(c, "shown", shown.detail.type);
  // The address is the app's start (its request_uri is spent); referrers still never leave the site.
  c.set("referrerPolicy", "same-origin");
  return renderPage(c, await confirmationPage(c, state, shown));
}

/** The login challenge of the site's login URL that the authorization endpoint answered, for this client. */
function loginChallengeOf(c: AppContext, clientId: string, location: string): string | undefined {
  const site = new URL(c.req.url).origin;
  if (!URL.canParse(location, site)) return undefined;
  const target = new URL(location, site);
  if (target.origin !== site || target.pathname !== "/" || target.hash !== "") return undefined;
  const loginUrl = loginUrlQuery.safeParse(Object.fromEntries(target.searchParams));
  return loginUrl.success && loginUrl.data.client_id === clientId ? loginUrl.data.login_challenge : undefined;
}

/** The authorization endpoint did not answer a login URL for the pushed request. */
function refusedStart(c: AppContext, asked: CallResult<{ location: string }>): Promise<Response> {
  // RFC 9126 §4: JSON when the request_uri is unknown or another client's; at the app's redirect URI with `error` when
  // it is used or expired (or, with any other error, spent all the same). The browser stays here with the modal.
  const site = new URL(c.req.url).origin;
  const refused = asked.ok
    ? URL.canParse(asked.data.location, site) && new URL(asked.data.location, site).searchParams.has("error")
    : asked.status === 400 && asked.problem.type === "invalid_request_uri";
  if (refused) {
    logConfirmation(c, "request_uri_refused");
    return errorPage(c, { modal: "operationUnavailable" });
  }
  if (asked.ok) return errorPage(c, { modal: "unexpectedError", status: 502 });
  const otherRefusal = asked.status >= 400 && asked.status < 500 && asked.status !== 429;
  return errorPage(c, otherRefusal ? { modal: "parameterError" } : failure(asked));
}

interface ConfirmationState {
  operation: OperationState;
  /** The operation as the login request holds it now. */
  view: Operation;
  type: AuthorizationDetailsType;
  /** The page's mark of the operation it shows (a digest of its login challenge). */
  shown: string;
}

/**
 * The screen again, from the operation cookie and the upstream's login request: a reload, and every form of it. The
 * brand is the operation's app's, whatever the request resolved.
 */
const confirmationScreen: ScreenLoader<ConfirmationState> = async (c) => {
  const operation = await readSealed(c, "operation");
  const brand = operation && brandForClientId(operation.clientId);
  if (!operation || !brand) return undefined;
  c.set("brand", brand);
  const shown = await operationOf(c, operation.clientId, operation.loginChallenge);
  if ("refuse" in shown) return shown;
  return {
    state: {
      operation,
      view: shown,
      type: shown.detail.type,
      shown: await sha256Hex(operation.loginChallenge),
    },
    page: await confirmationPage(c, operation, shown),
  };
};

export const operationConfirmation = { screen: confirmationScreen };

/**
 * A form of a page that showed another operation than this browser's now (another was opened since, in another
 * tab): refused before anything is asked, so that a passkey never approves what its page did not show.
 */
function superseded(c: AppContext, type: AuthorizationDetailsType): Promise<Response> {
  logConfirmation(c, "superseded", type);
  return errorPage(c, { modal: "operationUnavailable" });
}

/** The page's mark of the operation it shows. */
const shownField = z.string().check(z.regex(/^[0-9a-f]{64}$/));
/** The credential as the island posts it: `PublicKeyCredential.toJSON()`, at most 12 KB. */
const credentialField = jsonField(assertionCredentialSchema, 12_288);

/**
 * POST /operation/options: the ceremony for this browser's operation, for the island (JSON, same origin only). Its
 * challenge is the upstream's, derived from the details (docs/operations.md, "The binding").
 */
export async function operationPasskeyOptions(c: AppContext): Promise<Response> {
  if (!fromOwnPage(c)) return c.json({ type: "forbidden" }, 403);
  const operation = await readSealed(c, "operation");
  const brand = operation && brandForClientId(operation.clientId);
  if (!operation || !brand || passkeyPolicy(c.env, brand) === "off") return c.json({ type: "not_found" }, 404);
  const keep = (session: string) => writeSealed(c, "operation", { ...operation, passkey: { session } });
  return answerAssertionOptions(c, operation.loginChallenge, keep);
}

/** POST /operation: the signed assertion; counted per IP and per credential, as a passkey sign-in. */
export const approveOperation = formStep({
  screen: confirmationScreen,
  form: () => z.object({ operation: shownField, credential: credentialField }),
  subject: ({ form }) => `passkey:${form.credential.id}`,
  submit: async (c, { state, form, show }) => {
    if (form.operation !== state.shown) return superseded(c, state.type);
    const { loginChallenge, clientId, passkey } = state.operation;
    // The ceremony is used once, right or wrong: the next try asks for new options.
    await writeSealed(c, "operation", { loginChallenge, clientId });
    if (!passkey) return show({ modal: "operationNotApproved" });
    const outcome = await passkeyAssertionResult(
      c,
      { loginChallenge, session: passkey.session, deviceId: deviceId(c) },
      form.credential,
      await loginContext(c),
    );
    if (outcome.ok) {
      logConfirmation(c, "approved", state.type);
      // Cleared before continueTo builds its response, which copies the headers set so far.
      clearSealed(c, "operation");
      return continueTo(c, outcome.data.redirect_to, show);
    }
    return refusedApproval(c, { type: state.type, loginChallenge, credentialId: form.credential.id }, outcome, show);
  },
});

/** A refused assertion: said and logged; the login the upstream ended is the operation's end. */
async function refusedApproval(
  c: AppContext,
  {
    type,
    loginChallenge,
    credentialId,
  }: { type: AuthorizationDetailsType; loginChallenge: string; credentialId: string },
  outcome: CallResult<unknown>,
  show: Show,
): Promise<Response> {
  if (loginGone(outcome)) return operationOver(c, type);
  if (refusedAs(outcome, "cloned_authenticator")) {
    // As a passkey sign-in (worker/routes/signIn.tsx): named by the credential ID's digest only.
    const credentialDigest = (await sha256Hex(credentialId)).slice(0, 16);
    logEvent("warn", "passkey_cloned", { requestId: c.get("requestId"), credentialDigest });
    reportUnexpected(c, "a cloned passkey authenticator was refused", { credentialDigest });
    logConfirmation(c, "refused", type);
    return show({ modal: "passkeySuspended" });
  }
  if (refusedAs(outcome, "invalid_credential") || refusedAs(outcome, "ceremony_expired")) {
    // The fifth refused assertion ends the login upstream: then no try is left, and the screen says so at once.
    const alive = await loginRequest(c, loginChallenge);
    if (!alive.ok && loginGone(alive)) return operationOver(c, type);
    logConfirmation(c, "refused", type);
    return show({ modal: "operationNotApproved" });
  }
  return show(failure(outcome));
}

/** What the app reads of a cancel (RFC 6749 §4.1.2.1 `error_description`: printable ASCII). */
const CANCELLED = "The customer cancelled the operation.";

/**
 * POST /operation/cancel: the login rejected upstream (docs/operations.md, `POST /auth/v1/login/reject`), so that the
 * identity API learns of the cancel and the challenge can approve nothing any more; the browser follows the upstream's
 * `redirect_to` (allowed origins only), whence the OAuth2 server sends it to the app's redirect URI with
 * `error=access_denied` and the app's state. A failed call shows its modal over the screen, the operation kept.
 */
export const cancelOperation = formStep({
  screen: confirmationScreen,
  form: () => z.object({ operation: shownField }),
  submit: async (c, { state, form, show }) => {
    if (form.operation !== state.shown) return superseded(c, state.type);
    const rejected = await rejectLogin(c, state.operation.loginChallenge, CANCELLED, await loginContext(c));
    if (!rejected.ok) {
      if (!loginGone(rejected)) return show(failure(rejected));
      clearSealed(c, "operation");
      return errorPage(c, { modal: "operationUnavailable" });
    }
    logConfirmation(c, "cancelled", state.type);
    // Cleared before continueTo builds its response, which copies the headers set so far.
    clearSealed(c, "operation");
    return continueTo(c, rejected.data.redirect_to, show);
  },
});

// docs/operations.md "On the site", "The temporary alternative": where the brand allows it, the customer approves with
// the account's password, then the code the upstream asks next (the second factor's, and a new device's), each typed
// under the same details; the SMS names the operation too. The login is the operation's own: its acr (`mfa`) tells
// the app's server which way was used. No new password is asked here, and no passkey is offered after.

/**
 * POST /operation/password: the password of the account whose operation this is, counted per IP and login ID as a
 * sign-in's. A wrong one, a locked account or one in system transfer are one answer, as at sign-in (product §8).
 */
export const approveWithPassword = formStep({
  screen: confirmationScreen,
  form: (rules) =>
    z.object({ operation: shownField, username: ruleField("loginId"), password: ruleField("password", rules) }),
  subject: ({ form }) => normalisedSubject(form.username),
  submit: async (c, { state, form, show }) => {
    if (form.operation !== state.shown) return superseded(c, state.type);
    if (!approvesByCode(c)) return parameterProblem(c);
    const body = { flow: "email_password", username: form.username, password: form.password } as const;
    const outcome = await login(c, state.operation.loginChallenge, deviceId(c), body, await loginContext(c));
    if (outcome.ok) return nextApprovalStep(c, state, form.username, outcome.data, show);
    if (refusedAs(outcome, "operation_requires_second_factor")) {
      logConfirmation(c, "refused", state.type);
      return show({ modal: "operationNeedsSecondFactor" });
    }
    if (refusedAs(outcome, "operation_requires_passkey")) return alternativeRefused(c, show);
    if (loginGone(outcome)) return operationOver(c, state.type);
    if (isRefusal(outcome)) {
      logConfirmation(c, "refused", state.type);
      return show({ modal: "loginFailed" });
    }
    return show(failure(outcome));
  },
});

/**
 * POST /operation/code: the code of the step the upstream asked for, counted per IP and login session. A wrong one is
 * said at the field, the step kept; a session the upstream ended (five wrong codes, or its time) sends the customer
 * back to the password under the same details, while the operation's login lives.
 */
export const approveWithCode = formStep({
  screen: confirmationScreen,
  // The second factor's field, or a new device's: the page shows the one its step asks for.
  form: () =>
    z.object({ operation: shownField, mfaCode: z.optional(ruleField("code")), code: z.optional(ruleField("code")) }),
  subject: ({ state }) => state.operation.code?.session,
  submit: async (c, { state, form, show }) => {
    if (form.operation !== state.shown) return superseded(c, state.type);
    const step = state.operation.code;
    if (!step) return parameterProblem(c);
    const device = step.flow === "device_confirmation";
    const field = device ? "code" : "mfaCode";
    const typed = form[field];
    if (typed === undefined) return show({ form: { values: {}, errors: { [field]: "code.invalid" } }, status: 422 });
    const { loginChallenge, clientId } = state.operation;
    const body = { flow: step.flow, username: step.username, session: step.session, code: typed };
    const outcome = await login(c, loginChallenge, deviceId(c), body, await loginContext(c));
    if (outcome.ok) {
      if (device) logDeviceConfirmation(c, "confirmed");
      return nextApprovalStep(c, state, step.username, outcome.data, show);
    }
    if (refusedAs(outcome, "operation_requires_passkey")) return alternativeRefused(c, show);
    if (isRefusal(outcome)) {
      logConfirmation(c, "refused", state.type);
      const expired = refusedAs(outcome, "expired_code");
      const error = `${field}.${expired ? "expired" : "wrong"}` as const;
      return show({ form: { values: {}, errors: { [field]: error } }, status: 401 });
    }
    if (modalForFailure(outcome) !== "retry") return show(failure(outcome));
    const alive = await loginRequest(c, loginChallenge);
    if (!alive.ok && loginGone(alive)) return operationOver(c, state.type);
    logConfirmation(c, "refused", state.type);
    // The step is over, the operation is not: its screen again, with the password form, and why.
    const operation = { loginChallenge, clientId };
    await writeSealed(c, "operation", operation);
    return renderPage(c, await confirmationPage(c, operation, state.view), { modal: "operationNotApproved" });
  },
});

/**
 * After an accepted step of the alternative: the code step the upstream asks next, kept in the operation cookie and
 * shown on the screen; else the approval, whose `redirect_to` leads the browser to the app. An approval never asks
 * a new password, and a step this site does not know is never taken for another (the unexpected error, reported).
 */
async function nextApprovalStep(
  c: AppContext,
  state: ConfirmationState,
  username: string,
  data: LoginResponse,
  show: Show,
): Promise<Response> {
  const { loginChallenge, clientId } = state.operation;
  const next = data.additional_flow;
  if (next) {
    const { next: flow, session, destination } = next;
    if (flow !== "mfa_totp" && flow !== "mfa_sms" && flow !== "device_confirmation") {
      logEvent("error", "login_step_unknown", { requestId: c.get("requestId"), next: flow });
      reportUnexpected(c, "the upstream asked an operation's approval for a step the site does not take", {
        next: flow,
      });
      return show({ modal: "unexpectedError" });
    }
    await writeSealed(c, "operation", { loginChallenge, clientId, code: { username, flow, session, destination } });
    if (flow === "device_confirmation") logDeviceConfirmation(c, "shown");
    return c.redirect(OPERATION_PATH, 303);
  }
  if (!data.redirect_to) {
    // Neither a step nor the way on. The operation stays for another try.
    contractBroken(c, "an operation's accepted login answered no redirect_to", 201);
    return show({ modal: "unexpectedError" });
  }
  logConfirmation(c, "approved", state.type);
  // Cleared before continueTo builds its response, which copies the headers set so far.
  clearSealed(c, "operation");
  return continueTo(c, data.redirect_to, show);
}

/** The upstream refuses the alternative that the brand data offers: the two disagree, which operators must hear of. */
function alternativeRefused(c: AppContext, show: Show): Promise<Response> {
  contractBroken(c, "the identity API refuses the operation approval that the brand data allows", 403);
  return show({ modal: "unexpectedError" });
}

/** The operation's login is over upstream (spent, expired, ended after its last try): nothing can approve it. */
function operationOver(c: AppContext, type: AuthorizationDetailsType): Promise<Response> {
  logConfirmation(c, "refused", type);
  clearSealed(c, "operation");
  return errorPage(c, { modal: "operationUnavailable" });
}
