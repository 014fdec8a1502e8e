import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from "oauth4webapi";
import { TOTP } from "otpauth";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type ModalKey, modals } from "../../messages/modals";
import type { View } from "../../worker/session/authRequest";
import { type AppBrand, appStart } from "../support/appStart";
import type { Fault } from "../support/emulatorClient";
import { hiddenFields } from "../support/forms";
import { GENERATED_DOC_MARK } from "../support/generatedDocs";
import {
  GUNGNIR,
  LEMON,
  OPERATION_REDIRECT_URI,
  PARTNER,
  PASSWORD,
  TOTP_SECRET,
  withdrawalPush,
} from "../support/vocabulary";
import { emulator, ORIGIN, PAST_SHORT_TIMEOUT_MS, SHORT_TIMEOUT, type SiteFetchOptions, siteFetch } from "./helpers";
import { authorizationAskedBy, Journey, loginUrlOf, reachLoginScreen } from "./journey";

// The fault matrix: every identity and OAuth2 call the site makes, in the journey that makes it, gets each
// upstream fault through the emulator's fault API. Each cell must answer the product §8 modal that fits with a sensible
// status (502/504 for a failure, 503 + MAINTENANCE for maintenance), keep the user's cookies so that the same step
// works once the upstream is back, and never show a blank page, a raw 5xx or a stack trace. The table is written to
// docs/fault-matrix.md (this test prints it; test/worker/vitest.config.ts writes it) when every cell ran.

const PHONE = "09012345678";
let serial = 0;
const unique = (name: string) => `fault.${name}.${++serial}@example.com`;

/** One step of a journey that makes an upstream call: how to reach it, and the site request that makes the call. */
interface Scene {
  journey: string;
  call: string;
  /** The emulator fault's method and path. */
  method: string;
  pathPattern: string;
  /** The answer that breaks this call's contract while claiming success (a redirect's with its `location`). */
  contractBreak?: { status: number; body?: unknown; location?: string };
  /** Reaches the step that makes the call. */
  prepare(): Promise<Prepared>;
  /**
   * How many of the scene's cells one prepared journey serves, one after the other (one unless given). More only
   * where a successful retry leaves the same call possible again: an injected fault answers in the emulator's place
   * and changes nothing there (emulator/state/faults.ts), so each cell still meets the state its step has.
   */
  cellsPerJourney?: number;
  /** Where the call's section of docs/product.md says otherwise than the general rule (reasons in docs/fault-matrix.md). */
  expect?: Partial<Record<FaultName, { status: number; modal: ModalKey }>>;
}

interface Prepared {
  journey: Journey;
  /** The site request that makes the call; `options` are for it alone (the timeout cell's SHORT_TIMEOUT). */
  act(options?: SiteFetchOptions): Promise<Response>;
  /** What the user does once the upstream is back, where it is not `act` again. */
  retried?(): Promise<Response>;
}

type FaultName = "timeout" | "500" | "maintenance" | "malformed" | "dropped" | "contract";

const FAULTS: Record<FaultName, (scene: Scene) => Omit<Fault, "pathPattern"> | undefined> = {
  // Delayed far past the short timeout its request takes (SHORT_TIMEOUT); never handled upstream (the 503 after the
  // delay is not what the site sees).
  timeout: () => ({ delayMs: PAST_SHORT_TIMEOUT_MS, status: 503 }),
  "500": () => ({ status: 500, body: { type: "server_error" } }),
  maintenance: () => ({ status: 503, body: { type: "maintenance" } }),
  malformed: (scene) => ({ status: scene.contractBreak?.status ?? 200, malformed: true }),
  dropped: () => ({ drop: true }),
  contract: (scene) => scene.contractBreak,
};

const GENERAL: Record<FaultName, { status: number; modal: ModalKey }> = {
  timeout: { status: 504, modal: "unexpectedError" },
  "500": { status: 502, modal: "unexpectedError" },
  maintenance: { status: 503, modal: "maintenance" },
  malformed: { status: 502, modal: "unexpectedError" },
  dropped: { status: 502, modal: "unexpectedError" },
  contract: { status: 502, modal: "unexpectedError" },
};

/** The app opens the site for `view`; answers the OAuth2 server's login URL for its authorization, not yet opened. */
async function atLoginUrl(view: View, brand = GUNGNIR): Promise<{ journey: Journey; loginUrl: string }> {
  const journey = new Journey();
  const { challenge } = await reachLoginScreen(journey, brand, view);
  return { journey, loginUrl: (await loginUrlOf(journey, challenge)).toString() };
}

async function atSignIn(email: string, seed: Record<string, unknown> = {}, view: View = "signIn", brand = GUNGNIR) {
  await emulator.seed({ email, ...seed });
  const journey = new Journey();
  await reachLoginScreen(journey, brand, view);
  return journey;
}

/** Signs in on the site's screen and follows to the site's /callback URL (not yet opened). */
async function atCallback(email: string, view: View = "signIn"): Promise<{ journey: Journey; callback: string }> {
  const journey = await atSignIn(email, {}, view);
  const login = await journey.postForm("/signIn", { username: email, password: PASSWORD });
  const toCallback = await journey.request(login.headers.get("Location") ?? "");
  return { journey, callback: toCallback.headers.get("Location") ?? "" };
}

/** Starts again from the app's request the browser stored (`/restart`, as the retry modal's link does). */
async function startAgain(journey: Journey): Promise<Response> {
  return (await journey.follow(await journey.request("/restart"))).response;
}

/** Signs in for an own view and lands on its account screen (the tokens cookie is set). */
async function signedInAt(view: View, email: string): Promise<Journey> {
  const { journey, callback } = await atCallback(email, view);
  await (await journey.request(callback)).body?.cancel();
  return journey;
}

async function partnerConsentLink(email: string): Promise<{ journey: Journey; link: string }> {
  const journey = await atSignIn(email, {}, "signIn", PARTNER);
  let step = await journey.postForm("/signIn", { username: email, password: PASSWORD });
  for (let hop = 0; hop < 8 && step.status >= 300 && step.status < 400; hop++) {
    const location = step.headers.get("Location") ?? "";
    if (new URL(location, ORIGIN).searchParams.has("consent_challenge")) return { journey, link: location };
    step = await journey.request(location);
  }
  throw new Error("no consent link");
}

/**
 * The app's server pushes `sampleWithdrawal()` to the site's origin (docs/operations.md, `POST /oauth2/par`, as a
 * server: no browser's headers); answers where the app then opens the browser, and the pushed state.
 */
async function pushedStart(brand: AppBrand = GUNGNIR): Promise<{ start: string; state: string }> {
  const state = `fault-operation-${++serial}-${crypto.randomUUID()}`;
  const body = withdrawalPush(await calculatePKCECodeChallenge(generateRandomCodeVerifier()), state);
  body.set("client_id", brand.clientId);
  body.set("redirect_uri", `https://app.${brand.serviceId}.example/oauth/callback`);
  const response = await siteFetch(`${ORIGIN}/oauth2/par`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body,
  });
  const pushed = (await response.json()) as { request_uri?: string };
  expect(response.status, JSON.stringify(pushed)).toBe(201);
  const query = new URLSearchParams({ client_id: brand.clientId, request_uri: pushed.request_uri ?? "" });
  return { start: `/${brand.serviceId}/auth?${query}`, state };
}

/** The browser opens a pushed operation: its confirmation screen, whose mark of the operation its forms post. */
async function atConfirmation(brand: AppBrand = GUNGNIR): Promise<{ journey: Journey; mark: string; state: string }> {
  const journey = new Journey();
  const { start, state } = await pushedStart(brand);
  const page = await journey.request(start);
  const html = await page.text();
  expect(page.status, "the confirmation screen").toBe(200);
  const mark = /name="operation" value="([0-9a-f]{64})"/.exec(html)?.[1];
  expect(mark, "no operation mark on the confirmation screen").toBeDefined();
  return { journey, mark: mark ?? "", state };
}

/** A sign-in's login request, well formed but without the `authorization_details` an operation's login holds. */
const loginRequestWithoutDetails = {
  status: 200,
  body: {
    client_id: GUNGNIR.clientId,
    request_url: `${ORIGIN}/oauth2/auth?${new URLSearchParams({
      client_id: GUNGNIR.clientId,
      redirect_uri: OPERATION_REDIRECT_URI,
      state: "fault-operation-state",
    })}`,
  },
};

const SCENES: Scene[] = [
  {
    journey: "entry",
    call: "GET /oauth2/auth (the app's start)",
    method: "GET",
    pathPattern: "/oauth2/auth",
    async prepare() {
      const journey = new Journey();
      const start = (await appStart(GUNGNIR, "signIn")).path;
      return { journey, act: (options) => journey.request(start, {}, options) };
    },
  },
  {
    journey: "own authorization",
    call: "GET /oauth2/auth (proxied)",
    method: "GET",
    pathPattern: "/oauth2/auth",
    async prepare() {
      const journey = new Journey();
      const asked = await authorizationAskedBy(await journey.request((await appStart(GUNGNIR, "signIn")).path));
      const target = `${asked.pathname}${asked.search}`;
      return {
        journey,
        act: (options) => journey.request(target, { headers: { "Sec-Fetch-Mode": "navigate" } }, options),
      };
    },
  },
  {
    journey: "login URL",
    call: "GET /auth/v1/login",
    method: "GET",
    pathPattern: "/auth/v1/login",
    contractBreak: { status: 200, body: { client_id: GUNGNIR.clientId } },
    async prepare() {
      const { journey, loginUrl } = await atLoginUrl("signIn");
      return { journey, act: (options) => journey.request(loginUrl, {}, options) };
    },
  },
  {
    journey: "sign-in",
    call: "POST /auth/v1/login (password)",
    method: "POST",
    pathPattern: "/auth/v1/login",
    contractBreak: { status: 201, body: {} },
    async prepare() {
      const email = unique("signin");
      const journey = await atSignIn(email);
      return {
        journey,
        act: (options) => journey.postForm("/signIn", { username: email, password: PASSWORD }, options),
      };
    },
    // product §4: a 201 without redirect_to or a next step is 'もう一度やり直してください'.
    expect: { contract: { status: 409, modal: "retry" } },
  },
  {
    journey: "sign-in",
    call: "POST /auth/v1/login (mfa_totp)",
    method: "POST",
    pathPattern: "/auth/v1/login",
    contractBreak: { status: 201, body: { additional_flow: { next: "mfa_unknown", session: "s" } } },
    async prepare() {
      const email = unique("totp");
      const journey = await atSignIn(email, { mfa: { totp: TOTP_SECRET } });
      await (await journey.postForm("/signIn", { username: email, password: PASSWORD })).body?.cancel();
      return {
        journey,
        act: (options) =>
          journey.postForm("/signIn/mfa", { mfaCode: new TOTP({ secret: TOTP_SECRET }).generate() }, options),
      };
    },
  },
  {
    journey: "sign-in",
    call: "POST /auth/v1/login (new_password)",
    method: "POST",
    pathPattern: "/auth/v1/login",
    contractBreak: { status: 201, body: {} },
    async prepare() {
      const email = unique("forced");
      const journey = await atSignIn(email, { forceChangePassword: true });
      await (await journey.postForm("/signIn", { username: email, password: PASSWORD })).body?.cancel();
      return {
        journey,
        act: (options) =>
          journey.postForm("/changePasswordInForceChangePassword", { newPassword: "N3w!Passw0rd" }, options),
      };
    },
    expect: { contract: { status: 409, modal: "retry" } },
  },
  {
    journey: "sign-up",
    call: "POST /auth/v1/register/checkEmail",
    method: "POST",
    pathPattern: "/auth/v1/register/checkEmail",
    contractBreak: { status: 200, body: { registered: "maybe" } },
    async prepare() {
      const journey = new Journey();
      await reachLoginScreen(journey, GUNGNIR, "signUp");
      return {
        journey,
        act: (options) => journey.postForm("/signUp/checkEmail", { email: unique("signup") }, options),
      };
    },
  },
  {
    journey: "sign-up",
    call: "POST /auth/v1/register",
    method: "POST",
    pathPattern: "/auth/v1/register",
    contractBreak: { status: 201, body: {} },
    async prepare() {
      const journey = new Journey();
      await reachLoginScreen(journey, GUNGNIR, "signUp");
      await (await journey.postForm("/signUp/checkEmail", { email: unique("register") })).body?.cancel();
      return { journey, act: (options) => journey.postForm("/signUp/inputPassword", { password: PASSWORD }, options) };
    },
  },
  {
    journey: "sign-up",
    call: "POST /auth/v1/register/confirm",
    method: "POST",
    pathPattern: "/auth/v1/register/confirm",
    contractBreak: { status: 201, body: {} },
    async prepare() {
      const email = unique("confirm");
      const journey = new Journey();
      await reachLoginScreen(journey, GUNGNIR, "signUp");
      await (await journey.postForm("/signUp/checkEmail", { email })).body?.cancel();
      await (await journey.postForm("/signUp/inputPassword", { password: PASSWORD })).body?.cancel();
      const code = await emulator.latestCode(email);
      return { journey, act: (options) => journey.postForm("/signUp/confirmMail", { code }, options) };
    },
  },
  {
    journey: "sign-up",
    call: "POST /auth/v1/register/confirm/resend",
    method: "POST",
    pathPattern: "/auth/v1/register/confirm/resend",
    async prepare() {
      const email = unique("resend");
      const journey = new Journey();
      await reachLoginScreen(journey, GUNGNIR, "signUp");
      await (await journey.postForm("/signUp/checkEmail", { email })).body?.cancel();
      await (await journey.postForm("/signUp/inputPassword", { password: PASSWORD })).body?.cancel();
      return { journey, act: (options) => journey.postForm("/signUp/confirmMail/resend", {}, options) };
    },
  },
  {
    journey: "callback",
    call: "POST /oauth2/token (code)",
    method: "POST",
    pathPattern: "/oauth2/token",
    contractBreak: { status: 200, body: { token_type: "bearer" } },
    async prepare() {
      const { journey, callback } = await atCallback(unique("token"));
      return { journey, act: (options) => journey.request(callback, {}, options) };
    },
  },
  {
    journey: "callback",
    call: "GET /auth/v1/user/profile",
    method: "GET",
    pathPattern: "/auth/v1/user/profile",
    contractBreak: { status: 200, body: { email_verified: "yes" } },
    async prepare() {
      const { journey, callback } = await atCallback(unique("profile"));
      return {
        journey,
        act: (options) => journey.request(callback, {}, options),
        // The code is spent by the first try; the user starts again from the stored app request.
        retried: () => startAgain(journey),
      };
    },
    // product §7: any profile answer other than 200 is UNEXPECTED_ERROR, maintenance included.
    expect: { maintenance: { status: 502, modal: "unexpectedError" } },
  },
  {
    journey: "consent",
    call: "GET /auth/v1/consent",
    method: "GET",
    pathPattern: "/auth/v1/consent",
    contractBreak: { status: 200, body: { requested_scope: [] } },
    // Reading the consent request changes nothing upstream: the page answers the same every time. Its 12 reads stay
    // within the read class's limit per address.
    cellsPerJourney: Number.POSITIVE_INFINITY,
    async prepare() {
      const { journey, link } = await partnerConsentLink(unique("consentget"));
      return { journey, act: (options) => journey.request(link, {}, options) };
    },
  },
  {
    journey: "consent",
    call: "POST /auth/v1/consent",
    method: "POST",
    pathPattern: "/auth/v1/consent",
    contractBreak: { status: 200, body: {} },
    async prepare() {
      const { journey, link } = await partnerConsentLink(unique("consentpost"));
      await (await journey.request(link)).body?.cancel();
      return { journey, act: (options) => journey.postForm(`/${PARTNER.serviceId}/consent`, {}, options) };
    },
  },
  {
    journey: "operation",
    call: "GET /oauth2/auth (a pushed request's start)",
    method: "GET",
    pathPattern: "/oauth2/auth",
    // The authorization endpoint's 302 to a login URL, but another client's: the site takes no challenge from it.
    contractBreak: {
      status: 302,
      location: `${ORIGIN}/?${new URLSearchParams({
        login_challenge: "fault0operation0challenge0of0another0client",
        client_id: PARTNER.clientId,
        view: "signIn",
      })}`,
    },
    async prepare() {
      const journey = new Journey();
      const { start } = await pushedStart();
      // The fault answers in the emulator's place: the request_uri is not presented, so not spent (docs/operations.md,
      // "In the emulator": spent by its first presentation), and the same start works once the upstream is back.
      return { journey, act: (options) => journey.request(start, {}, options) };
    },
  },
  {
    journey: "operation",
    call: "GET /auth/v1/login (the operation's details)",
    method: "GET",
    // The login request's read alone (a glob is the whole path): the start's GET /oauth2/auth goes through.
    pathPattern: "/auth/v1/login",
    contractBreak: loginRequestWithoutDetails,
    async prepare() {
      const journey = new Journey();
      const { start } = await pushedStart();
      return {
        journey,
        act: (options) => journey.request(start, {}, options),
        // The authorization call went through and spent the request_uri, so that the same start is now
        // operationUnavailable (docs/operations.md: "a reload of the start is operationUnavailable"): the app pushes
        // the operation anew and opens that, in the same browser.
        retried: async () => journey.request((await pushedStart()).start),
      };
    },
  },
  {
    journey: "operation",
    call: "GET /auth/v1/login (GET /operation, the screen again)",
    method: "GET",
    pathPattern: "/auth/v1/login",
    contractBreak: loginRequestWithoutDetails,
    // Reading the login request changes nothing upstream: the screen answers the same every time, from the operation
    // cookie. Its 12 reads stay within the read class's limit per address.
    cellsPerJourney: Number.POSITIVE_INFINITY,
    async prepare() {
      const { journey } = await atConfirmation();
      return { journey, act: (options) => journey.request("/operation", {}, options) };
    },
  },
  {
    journey: "operation",
    call: "POST /auth/v1/login/reject (the cancel)",
    method: "POST",
    pathPattern: "/auth/v1/login/reject",
    contractBreak: { status: 201, body: {} },
    async prepare() {
      const { journey, mark, state } = await atConfirmation();
      const cancel = (options?: SiteFetchOptions) =>
        journey.postForm("/operation/cancel", { client_id: GUNGNIR.clientId, operation: mark }, options);
      return {
        journey,
        act: cancel,
        // A failed reject shows its modal over the screen and keeps the operation (docs/operations.md, "The cancel"):
        // the same cancel then goes through, to the app with access_denied and the pushed state.
        async retried() {
          const cancelled = await cancel();
          expect(cancelled.status, "the cancel once the upstream is back").toBe(303);
          const { foreign } = await journey.follow(cancelled);
          expect(foreign && `${foreign.origin}${foreign.pathname}`, "the cancel ends at the app").toBe(
            OPERATION_REDIRECT_URI,
          );
          expect(foreign?.searchParams.get("error")).toBe("access_denied");
          expect(foreign?.searchParams.get("state")).toBe(state);
          return cancelled;
        },
      };
    },
  },
  {
    journey: "operation",
    call: "POST /auth/v1/login (the alternative's password)",
    method: "POST",
    pathPattern: "/auth/v1/login",
    // Accepted, yet neither a step nor the way on.
    contractBreak: { status: 201, body: {} },
    async prepare() {
      const email = unique("operation.password");
      await emulator.seed({ email, mfa: { totp: TOTP_SECRET } });
      const { journey, mark } = await atConfirmation(LEMON);
      const fields = { client_id: LEMON.clientId, operation: mark, username: email, password: PASSWORD };
      return { journey, act: (options) => journey.postForm("/operation/password", fields, options) };
    },
  },
  {
    journey: "operation",
    call: "POST /auth/v1/login (the alternative's code)",
    method: "POST",
    pathPattern: "/auth/v1/login",
    contractBreak: { status: 201, body: { additional_flow: { next: "mfa_unknown", session: "s" } } },
    async prepare() {
      const email = unique("operation.code");
      await emulator.seed({ email, mfa: { totp: TOTP_SECRET } });
      const { journey, mark } = await atConfirmation(LEMON);
      const password = { client_id: LEMON.clientId, operation: mark, username: email, password: PASSWORD };
      const step = await journey.postForm("/operation/password", password);
      expect(step.status, "the password accepted, the code asked").toBe(303);
      await step.body?.cancel();
      return {
        journey,
        act: (options) =>
          journey.postForm(
            "/operation/code",
            { client_id: LEMON.clientId, operation: mark, mfaCode: new TOTP({ secret: TOTP_SECRET }).generate() },
            options,
          ),
      };
    },
  },
  {
    journey: "password reset",
    call: "POST /auth/v1/password/forgot",
    method: "POST",
    pathPattern: "/auth/v1/password/forgot",
    async prepare() {
      const email = unique("forgot");
      await emulator.seed({ email });
      const journey = new Journey();
      return {
        journey,
        act: (options) => journey.postForm("/resetPassword", { client_id: GUNGNIR.clientId, email }, options),
      };
    },
  },
  {
    journey: "password reset",
    call: "POST /auth/v1/password/confirm",
    method: "POST",
    pathPattern: "/auth/v1/password/confirm",
    async prepare() {
      const email = unique("reset");
      await emulator.seed({ email });
      const journey = new Journey();
      await (await journey.postForm("/resetPassword", { client_id: GUNGNIR.clientId, email })).body?.cancel();
      const link = new URL((await emulator.latest(email)).link ?? "");
      // The link opened: its page's form, and the link in a cookie that a failure must leave for the retry.
      const { response: page } = await journey.follow(await journey.request(link.toString()));
      const form = { ...hiddenFields(await page.text()), newPassword: "N3w!Passw0rd" };
      const path = `/${GUNGNIR.serviceId}/forgotPassword`;
      return {
        journey,
        act: (options) => journey.postForm(path, form, options),
        // Once the upstream is back the user reloads the page, which needs the link's cookie, and sends it again.
        async retried() {
          const reloaded = await journey.request(page.url);
          return journey.postForm(path, { ...hiddenFields(await reloaded.text()), newPassword: "N3w!Passw0rd" });
        },
      };
    },
  },
  {
    journey: "change password",
    call: "PATCH /auth/v1/user/password",
    method: "PATCH",
    pathPattern: "/auth/v1/user/password",
    async prepare() {
      const journey = await signedInAt("passwordChange", unique("chpw"));
      const form = { currentPassword: PASSWORD, newPassword: "N3w!Passw0rd" };
      return { journey, act: (options) => journey.postForm("/changePassword", form, options) };
    },
  },
  {
    journey: "change e-mail",
    call: "PATCH /auth/v1/user/email",
    method: "PATCH",
    pathPattern: "/auth/v1/user/email",
    async prepare() {
      const journey = await signedInAt("emailChange", unique("chmail"));
      return {
        journey,
        act: (options) => journey.postForm("/changeEmail", { newEmail: unique("newaddress") }, options),
      };
    },
  },
  {
    journey: "register e-mail",
    call: "POST /auth/v1/user/email",
    method: "POST",
    pathPattern: "/auth/v1/user/email",
    // Each retry mails a code to an address of its own (the edge counts mail per address); the emulator sends one
    // account 3 codes in 10 minutes (emulator/contract/limits.ts), so a signed-in journey serves 3 cells.
    cellsPerJourney: 3,
    async prepare() {
      const journey = await signedInAt("emailChange", unique("regmail"));
      return {
        journey,
        act: (options) => journey.postForm("/registerEmail/sendCode", { email: unique("registered") }, options),
      };
    },
  },
  {
    journey: "register e-mail",
    call: "POST /auth/v1/user/email/confirm",
    method: "POST",
    pathPattern: "/auth/v1/user/email/confirm",
    async prepare() {
      const journey = await signedInAt("emailChange", unique("regconfirm"));
      const address = unique("confirmed");
      await (await journey.postForm("/registerEmail/sendCode", { email: address })).body?.cancel();
      const code = await emulator.latestCode(address);
      return { journey, act: (options) => journey.postForm("/registerEmail", { code }, options) };
    },
  },
  {
    journey: "MFA setup (TOTP)",
    call: "POST /auth/v1/user/mfa/setup (totp)",
    method: "POST",
    pathPattern: "/auth/v1/user/mfa/setup",
    contractBreak: { status: 201, body: { secret_code: "not a base32 secret" } },
    // A TOTP setup request while one is pending answers the pending secret again (product §4): each retry shows the page.
    // Its 12 reads stay within the read class's limit per address.
    cellsPerJourney: Number.POSITIVE_INFINITY,
    async prepare() {
      const journey = await signedInAt("mfaSetUp", unique("totpsetup"));
      // Without the script marker the page waits for the secret and answers with the call's own status.
      return { journey, act: (options) => journey.request("/mfa/setup/TOTP", {}, options) };
    },
  },
  {
    journey: "MFA setup (TOTP)",
    call: "POST /auth/v1/user/mfa/confirm (totp)",
    method: "POST",
    pathPattern: "/auth/v1/user/mfa/confirm",
    async prepare() {
      const email = unique("totpconfirm");
      const journey = await signedInAt("mfaSetUp", email);
      const page = await (await journey.request("/mfa/setup/TOTP")).text();
      const secret = /name="secret" value="([A-Z2-7=]+)"/.exec(page)?.[1] ?? "";
      const form = () => ({ secret, account: email, mfaOtpCode: new TOTP({ secret }).generate() });
      return { journey, act: (options) => journey.postForm("/mfa/setup/TOTP", form(), options) };
    },
  },
  {
    journey: "MFA setup (SMS)",
    call: "POST /auth/v1/user/mfa/setup (sms)",
    method: "POST",
    pathPattern: "/auth/v1/user/mfa/setup",
    async prepare() {
      const journey = await signedInAt("mfaSetUp", unique("smssetup"));
      await (await journey.postForm("/mfa/setup/SMS/warning", { phoneNumber: PHONE })).body?.cancel();
      return {
        journey,
        act: (options) => journey.postForm("/mfa/setup/SMS/sendCode", { phoneNumber: PHONE }, options),
      };
    },
  },
  {
    journey: "MFA setup (SMS)",
    call: "POST /auth/v1/user/mfa/confirm (sms)",
    method: "POST",
    pathPattern: "/auth/v1/user/mfa/confirm",
    async prepare() {
      const journey = await signedInAt("mfaSetUp", unique("smsconfirm"));
      const phone = `090${String(++serial).padStart(8, "0")}`;
      await (await journey.postForm("/mfa/setup/SMS/warning", { phoneNumber: phone })).body?.cancel();
      await (await journey.postForm("/mfa/setup/SMS/sendCode", { phoneNumber: phone })).body?.cancel();
      const code = await emulator.latestCode(`+81${phone}`);
      return { journey, act: (options) => journey.postForm("/mfa/setup/SMS", { mfaOtpCode: code }, options) };
    },
  },
  {
    journey: "sign-out",
    call: "GET /auth/v1/logout",
    method: "GET",
    pathPattern: "/auth/v1/logout",
    async prepare() {
      const journey = await signedInAt("passwordChange", unique("logout"));
      return { journey, act: (options) => journey.request(`/logout?client_id=${GUNGNIR.clientId}`, {}, options) };
    },
    // Sign-out forgets the user whatever the upstream answers (architecture §8): to the service top.
    expect: Object.fromEntries(
      (["timeout", "500", "maintenance", "malformed", "dropped"] as const).map((fault) => [
        fault,
        { status: 303, modal: "information" as const },
      ]),
    ),
  },
];

const MODAL_TITLES = Object.entries(modals)
  .filter(([, record]) => typeof record.title === "string" && record.title !== "")
  .map(([key, record]) => [key as ModalKey, String(record.title)] as const);

/** The modal a page opened (its dialog with `open`), by the catalogue's title. */
function openModal(html: string): ModalKey | undefined {
  const open = /<dialog[^>]*\bopen\b[^>]*>([\s\S]*?)<\/dialog>/.exec(html)?.[1] ?? "";
  return MODAL_TITLES.find(([, title]) => open.includes(title))?.[0];
}

interface Cell {
  status: number;
  modal: string;
  retryOk: boolean;
}
const results = new Map<string, Map<FaultName, Cell | undefined>>();

/** Each scene's current prepared journey, and how many cells it has served. */
const preparations = new Map<Scene, { prepared: Promise<Prepared>; cells: number }>();

/** A cell's journey: the scene's current one while it has cells left (Scene.cellsPerJourney), else a new one. */
function preparedFor(scene: Scene): Promise<Prepared> {
  const current = preparations.get(scene);
  if (current && current.cells < (scene.cellsPerJourney ?? 1)) {
    current.cells += 1;
    return current.prepared;
  }
  const prepared = scene.prepare();
  preparations.set(scene, { prepared, cells: 1 });
  return prepared;
}

afterEach(() => emulator.clearFaults());

describe("fault matrix: every upstream call × every fault", () => {
  for (const scene of SCENES) {
    for (const fault of Object.keys(FAULTS) as FaultName[]) {
      const injected = FAULTS[fault](scene);
      if (!injected) continue;
      it(`${scene.call} in ${scene.journey}: ${fault}`, async () => {
        const { journey, act, retried } = await preparedFor(scene);
        await emulator.fault({ method: scene.method, pathPattern: scene.pathPattern, ...injected });
        const response = await act(fault === "timeout" ? SHORT_TIMEOUT : undefined);
        const html = await response.text();
        const expected = scene.expect?.[fault] ?? GENERAL[fault];
        const modal = response.status >= 300 && response.status < 400 ? "information" : openModal(html);
        expect(response.headers.get("Content-Security-Policy"), "security headers").toContain("default-src 'self'");
        expect(html, "a stack trace").not.toMatch(/\bat \S+ \(|\.tsx?:\d+/);
        if (response.status < 300 || response.status >= 400)
          expect(response.headers.get("Content-Type"), "a page, not raw JSON").toContain("text/html");
        expect({ status: response.status, modal }).toEqual(expected);
        // The upstream is back; the cookies the browser kept let the same step (or a restart) go on.
        await emulator.clearFaults();
        // 'もう一度やり直してください' asks to start again.
        const again = await (expected.modal === "retry" ? startAgain(journey) : (retried ?? act)());
        await again.body?.cancel();
        const retryOk = again.status < 400;
        const row = results.get(`${scene.journey} | ${scene.call}`) ?? new Map<FaultName, Cell | undefined>();
        row.set(fault, {
          status: response.status,
          modal: expected.modal === "information" ? "redirect" : String(modal),
          retryOk,
        });
        results.set(`${scene.journey} | ${scene.call}`, row);
        expect(again.status, "the step works again once the upstream is back").toBeLessThan(400);
      }, 30_000);
    }
  }
});

afterAll(() => {
  const faults = Object.keys(FAULTS) as FaultName[];
  const cellsRun = [...results.values()].reduce((sum, row) => sum + row.size, 0);
  const cellsAll = SCENES.reduce((sum, scene) => sum + faults.filter((fault) => FAULTS[fault](scene)).length, 0);
  // A partial run (a filter, a failure) leaves the committed document as it is.
  if (cellsRun !== cellsAll) return;
  const lines = [
    "# Fault matrix",
    "",
    "Generated by `test/worker/faultMatrix.test.ts`; do not edit. Each cell: the status the site answers,",
    "the product §8 modal it shows, and whether the same step works again once the upstream is back (✓). `—`: the",
    "call has no success contract to break. Timeout: delayed past `UPSTREAM_TIMEOUT_MS`; malformed: a success",
    "status with a body that is not JSON; dropped: the connection closes; contract: a success status whose body",
    "breaks the call's contract (a missing `redirect_to`, an unknown `additional_flow.next`, a token answer without",
    "a token, an operation's login request without its `authorization_details`, a login URL for another client …).",
    "",
    "Deliberate exceptions: a login 201 without `redirect_to` is product §4's 'もう一度やり直してください' (409), and the user",
    "starts again from the stored app request (`/restart`, what the retry column tries there); any profile answer other",
    "than 200 is UNEXPECTED_ERROR (product §7), maintenance included, and as the code is then spent the retry starts",
    "again too; sign-out forgets the user whatever the upstream answers and goes to the service top (303). A refused",
    "code exchange (not in this matrix: the upstream answered) stays the callback's parameter problem (product §2).",
    "",
    `| journey | call | ${faults.join(" | ")} |`,
    `|---|---|${faults.map(() => "---").join("|")}|`,
  ];
  for (const [key, row] of results) {
    const cells = faults.map((fault) => {
      const cell = row.get(fault);
      return cell ? `${cell.status} ${cell.modal}${cell.retryOk ? " ✓" : " ✗"}` : "—";
    });
    lines.push(`| ${key} | ${cells.join(" | ")} |`);
  }
  console.log(`${GENERATED_DOC_MARK}docs/fault-matrix.md\n${lines.join("\n")}\n`);
});
