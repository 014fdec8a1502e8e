import { env } from "cloudflare:test";
import { TOTP } from "otpauth";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { fieldMessages, screens } from "../../messages/ja";
import { RETRY_AFTER_SECONDS } from "../../worker/rateLimit";
import { credentialDigest } from "../../worker/session/deviceCredential";
import { parseSessionKeys } from "../../worker/session/keys";
import { seal } from "../../worker/session/sealed";
import { APP_STATE } from "../support/appStart";
import { expectModal, expectNoSecrets, expectRedirect } from "../support/expectations";
import { DEVICE_CREDENTIAL_COOKIE, TEST_DEVICE_DIGEST, TEST_DEVICE_KEY, testDeviceCookie } from "../support/testDevice";
import { GUNGNIR, NEW_PASSWORD, PASSWORD, TOTP_SECRET } from "../support/vocabulary";
import { emulator, postForm, sealedCookie } from "./helpers";
import { Journey, type JourneyOptions, reachLoginScreen } from "./journey";
import { rateLimitClock } from "./rateLimits";

// docs/devices.md: a login from a device the account does not know is confirmed by a code mailed to its address, after
// the password and every other step; the site carries the login's context (the device credential's digest, the
// edge's place, the browser) and keeps the device credential in a sealed cookie that sign-out does not clear.

const DEVICE_PATH = "/signIn/device";
const APP_REDIRECT = `https://app.${GUNGNIR.serviceId}.example/oauth/callback`;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A rate limit that lets everything through: the emulator's own cap is then what a test sees. */
const UNLIMITED = { limit: async () => ({ success: true }) } as unknown as RateLimit;
/** The project's session keys (the dev environment's), which the site seals with. */
const SESSION_KEYS = env.SESSION_KEYS ?? "";

beforeEach(async () => {
  await emulator.reset();
});

/** An address of this test's own: the per-subject limits count across the project's files. */
const address = (what: string) => `device.${what}.${crypto.randomUUID().slice(0, 8)}@example.com`;

/** The brand's app opens the site (extSignIn: the app gets its code at the end) and the user sends the password. */
async function signIn(journey: Journey, email: string, password = PASSWORD): Promise<Response> {
  await reachLoginScreen(journey, GUNGNIR, "extSignIn");
  return journey.postForm("/signIn", { client_id: GUNGNIR.clientId, username: email, password });
}

/** The login is done: the browser is taken on to the app's redirect URI with its code and state. */
async function expectAppGetsCode(journey: Journey, response: Response): Promise<void> {
  const { foreign } = await journey.follow(response);
  expect(foreign && `${foreign.origin}${foreign.pathname}`, "the app's redirect URI").toBe(APP_REDIRECT);
  expect(foreign?.searchParams.get("code")).toMatch(/.{16,}/);
  expect(foreign?.searchParams.get("state")).toBe(APP_STATE);
  expect(await journey.sealed("signIn")).toBeUndefined();
}

/** The device step's screen: the masked address the code went to, no session, challenge or code in it. */
async function expectDeviceScreen(journey: Journey, email: string): Promise<string> {
  const state = await journey.sealedKept("signIn");
  expect(state.device?.session).toMatch(/.{8,}/);
  const page = await journey.request(DEVICE_PATH);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain(screens.signInDevice.title);
  const destination = state.device?.destination ?? "";
  expect(destination).toMatch(/\*/);
  expect(destination).not.toBe(email);
  expect(html).toContain(`${destination} 宛に6桁の確認コードを送信しました`);
  expect(html).toContain('action="/signIn/device/resend"');
  expect(html).toContain('href="/restart"');
  const code = await emulator.latestCode(email);
  expectNoSecrets(html, [state.device?.session, state.loginChallenge, code, PASSWORD, email]);
  return code;
}

/** A browser that signs `email` in and confirms its device with the mailed code, ending at the app. */
async function confirmedSignIn(journey: Journey, email: string): Promise<void> {
  expectRedirect(await signIn(journey, email), DEVICE_PATH);
  const code = await expectDeviceScreen(journey, email);
  await expectAppGetsCode(journey, await journey.postForm(DEVICE_PATH, { code }));
}

/** A user the browser is new to, signed in with the password up to the device step: its address and browser. */
async function atDeviceStep(what: string, options: JourneyOptions = {}): Promise<{ email: string; journey: Journey }> {
  const email = address(what);
  await emulator.seed({ email, knownDevices: [] });
  const journey = new Journey(options);
  expectRedirect(await signIn(journey, email), DEVICE_PATH);
  return { email, journey };
}

const wrongCodeFor = (code: string) => (code === "000000" ? "111111" : "000000");

describe("the new-device confirmation (docs/devices.md)", () => {
  it("follows the password of a new device; the mailed code takes the browser on to the app's code", async () => {
    const email = address("password");
    await emulator.seed({ email, knownDevices: [] });
    const journey = new Journey();
    await confirmedSignIn(journey, email);
    // The device is known from now on: the next login from this browser asks for no code.
    await expectAppGetsCode(journey, await signIn(journey, email));
  });

  it("follows the second factor: password, then TOTP, then the device's code", async () => {
    const email = address("totp");
    await emulator.seed({ email, mfa: { totp: TOTP_SECRET }, knownDevices: [] });
    const journey = new Journey();
    expectRedirect(await signIn(journey, email), "/signIn/mfa");
    const mfaCode = new TOTP({ secret: TOTP_SECRET }).generate();
    expectRedirect(await journey.postForm("/signIn/mfa", { mfaCode }), DEVICE_PATH);
    expect((await journey.sealedKept("signIn")).mfa).toBeUndefined();
    const code = await expectDeviceScreen(journey, email);
    await expectAppGetsCode(journey, await journey.postForm(DEVICE_PATH, { code }));
  });

  it("comes before the forced new password, which is the last step", async () => {
    const email = address("forced");
    await emulator.seed({ email, forceChangePassword: true, knownDevices: [] });
    const journey = new Journey();
    expectRedirect(await signIn(journey, email), DEVICE_PATH);
    const code = await expectDeviceScreen(journey, email);
    expectRedirect(await journey.postForm(DEVICE_PATH, { code }), "/changePasswordInForceChangePassword");
    const forced = await journey.postForm("/changePasswordInForceChangePassword", { newPassword: NEW_PASSWORD });
    await expectAppGetsCode(journey, forced);
  });

  it("goes on as any completed password login: a browser that can make a passkey is offered one", async () => {
    const email = address("enrol");
    await emulator.seed({ email, knownDevices: [] });
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "extSignIn");
    const form = { client_id: GUNGNIR.clientId, username: email, password: PASSWORD, webauthn: "1" };
    expectRedirect(await journey.postForm("/signIn", form), DEVICE_PATH);
    const code = await emulator.latestCode(email);
    expectRedirect(await journey.postForm(DEVICE_PATH, { code }), "/signIn/passkey/enrol");
    expect((await journey.sealedKept("signIn")).enrolment?.redirectTo).toMatch(/\/oauth2\/auth\?/);
  });

  it("says a wrong code is wrong (401) and keeps the session for the right one", async () => {
    const { email, journey } = await atDeviceStep("wrong");
    const code = await emulator.latestCode(email);
    const before = await journey.sealedKept("signIn");
    const wrong = await journey.postForm(DEVICE_PATH, { code: wrongCodeFor(code) });
    expect(wrong.status).toBe(401);
    const html = await wrong.text();
    expect(html).toContain(fieldMessages["code.wrong"]);
    expect(html).toContain(screens.signInDevice.title);
    expect(await journey.sealed("signIn")).toEqual(before);
    await expectAppGetsCode(journey, await journey.postForm(DEVICE_PATH, { code }));
  });

  it("re-renders a code that is not 6 digits (422) without asking the upstream", async () => {
    const { journey } = await atDeviceStep("malformed");
    const response = await journey.postForm(DEVICE_PATH, { code: "12a" });
    expect(response.status).toBe(422);
    expect(await response.text()).toContain(fieldMessages["code.invalid"]);
  });

  it("asks to start again after five wrong codes (the upstream ends the session), then drops it", async () => {
    const { email, journey } = await atDeviceStep("five");
    const code = await emulator.latestCode(email);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await journey.postForm(DEVICE_PATH, { code: wrongCodeFor(code) });
      await response.body?.cancel();
      expect(response.status, `wrong code ${attempt}`).toBe(401);
    }
    // The sixth code in a minute is the edge's to refuse (the code class, per session); past the period, the
    // upstream's, which ended the session at the fifth wrong code.
    await expectModal(await journey.postForm(DEVICE_PATH, { code }), 429, "tooManyAttempts");
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    await expectModal(await journey.postForm(DEVICE_PATH, { code }), 409, "retry");
    const { loginChallenge } = await journey.sealedKept("signIn");
    expect(await journey.sealed("signIn")).toEqual({ loginChallenge, username: email });
    await expectModal(await journey.postForm(DEVICE_PATH, { code }), 400, "parameterError");
  });

  it("shows new devices suspended when the account's wrong codes reach the upstream's limit; a known device signs in", async () => {
    // Two new browsers of a guesser with the password, five wrong codes each (ten for the account).
    const email = address("guessed");
    await emulator.seed({ email });
    const [first, second] = [new Journey({ device: "new" }), new Journey({ device: "new" })];
    for (const guesser of [first, second]) expectRedirect(await signIn(guesser, email), DEVICE_PATH);
    const code = await emulator.latestCode(email);
    const answers: number[] = [];
    for (const guesser of [first, second])
      for (let attempt = 1; attempt <= 5; attempt++) {
        const answer = await guesser.postForm(
          DEVICE_PATH,
          { code: wrongCodeFor(code) },
          { env: { RL_CODE_BY_SUBJECT: UNLIMITED } },
        );
        answers.push(answer.status);
        if (answers.length === 10) await expectModal(answer, 429, "newDevicesSuspended");
        else await answer.body?.cancel();
      }
    expect(answers).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 401, 429]);
    // A third new browser is refused at the password, before any code is mailed.
    const mailed = (await emulator.outbox(email)).filter((mail) => mail.code).length;
    await expectModal(await signIn(new Journey({ device: "new" }), email), 429, "newDevicesSuspended");
    expect((await emulator.outbox(email)).filter((mail) => mail.code)).toHaveLength(mailed);
    // The owner's browser, a device the account knows, still gets in.
    const owner = new Journey();
    await expectAppGetsCode(owner, await signIn(owner, email));
  });

  it("asks to start again when the confirmation session has expired", async () => {
    const { email, journey } = await atDeviceStep("late");
    const code = await emulator.latestCode(email);
    // The code and its session live 10 minutes from the latest mail.
    await emulator.clock(11 * 60 * 1000);
    await expectModal(await journey.postForm(DEVICE_PATH, { code }), 409, "retry");
    await expectModal(await journey.postForm(DEVICE_PATH, { code }), 400, "parameterError");
  });

  it("resends a code (the old one void) and, past the mail class's limit for the session, answers 429", async () => {
    const { email, journey } = await atDeviceStep("resend");
    const first = await emulator.latestCode(email);
    expectRedirect(await journey.postForm("/signIn/device/resend", {}), DEVICE_PATH);
    const second = await emulator.latestCode(email);
    expect(await emulator.count(email)).toBeGreaterThanOrEqual(2);
    if (first !== second) {
      const old = await journey.postForm(DEVICE_PATH, { code: first });
      expect(old.status).toBe(401);
      await old.body?.cancel();
    }
    await expectAppGetsCode(journey, await journey.postForm(DEVICE_PATH, { code: second }));
  });

  it("counts resends per session in the mail class: the edge answers 429 before the upstream's own cap", async () => {
    const { journey } = await atDeviceStep("resendflood");
    // The upstream answers every resend: only the site's limit (3 a minute per session) can refuse one.
    await emulator.fault({ pathPattern: "/auth/v1/login/device/resend", status: 201, body: {}, times: 20 });
    const resend = () => journey.postForm("/signIn/device/resend", {}, { env: { RL_MAIL_BY_IP: UNLIMITED } });
    const statuses: number[] = [];
    // The rate limits count on the test's clock (docs/testing.md): the fourth, exactly.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const response = await resend();
      statuses.push(response.status);
      await response.body?.cancel();
    }
    expect(statuses.slice(0, 3)).toEqual([303, 303, 303]);
    const refused = await resend();
    const html = await expectModal(refused, 429, "tooManyAttempts");
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect(html).toContain('action="/signIn/device"');
    // Past the period the session's next resend is let through.
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    expectRedirect(await resend(), DEVICE_PATH);
  });

  it("shows the upstream's own cap on resends as the same 429 modal", async () => {
    const { journey } = await atDeviceStep("resendcap");
    const cap = { status: 429, body: { type: "too_many_requests", detail: "Too many codes." } };
    await emulator.fault({ pathPattern: "/auth/v1/login/device/resend", ...cap });
    await expectModal(await journey.postForm("/signIn/device/resend", {}), 429, "tooManyAttempts");
    expect((await journey.sealedKept("signIn")).device).toBeDefined();
  });

  it("asks nothing of a device the account knows (the test device, by default)", async () => {
    const email = address("known");
    await emulator.seed({ email });
    const journey = new Journey();
    await expectAppGetsCode(journey, await signIn(journey, email));
    expect((await journey.sealedKept("deviceCredential")).key).toBe(TEST_DEVICE_KEY);
  });
});

describe("the device credential (docs/devices.md)", () => {
  it("is made at the first login of a browser without one: a sealed, HttpOnly cookie of 400 days", async () => {
    const email = address("first");
    await emulator.seed({ email });
    const journey = new Journey({ device: "new" });
    await reachLoginScreen(journey, GUNGNIR, "extSignIn");
    expect(journey.has(DEVICE_CREDENTIAL_COOKIE)).toBe(false);
    const response = await journey.postForm("/signIn", { username: email, password: PASSWORD });
    const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${DEVICE_CREDENTIAL_COOKIE}=`));
    expect(line).toMatch(/; Max-Age=34560000; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const credential = await journey.sealedKept("deviceCredential");
    expect(credential.key).not.toBe(TEST_DEVICE_KEY);
    // The account knows the test device only: this browser is new to it.
    expectRedirect(response, DEVICE_PATH);
  });

  it("counts as none when forged (a tampered cookie): the login is a new device's and gets a new credential", async () => {
    const email = address("forged");
    await emulator.seed({ email });
    const journey = new Journey({ device: "new" });
    const genuine = await testDeviceCookie(SESSION_KEYS);
    const at = genuine.length - 5;
    const forged = `${genuine.slice(0, at)}${genuine[at] === "A" ? "B" : "A"}${genuine.slice(at + 1)}`;
    journey.setCookie(`${forged}; Path=/; Secure; HttpOnly`);
    expectRedirect(await signIn(journey, email), DEVICE_PATH);
    const issued = await journey.sealedKept("deviceCredential");
    expect(issued.key).not.toBe(TEST_DEVICE_KEY);
  });

  it("counts as none when sealed more than 400 days ago", async () => {
    const email = address("old");
    await emulator.seed({ email });
    const journey = new Journey({ device: "new" });
    const old = await testDeviceCookie(SESSION_KEYS, Date.now() - 401 * DAY_MS);
    journey.setCookie(`${old}; Path=/; Secure; HttpOnly`);
    expectRedirect(await signIn(journey, email), DEVICE_PATH);
    expect((await journey.sealedKept("deviceCredential")).key).not.toBe(TEST_DEVICE_KEY);
  });

  it("counts as none when made more than 400 days ago, even in a cookie sealed to live longer", async () => {
    const email = address("oldkey");
    await emulator.seed({ email });
    const journey = new Journey({ device: "new" });
    const token = await seal(
      "device-credential",
      { key: TEST_DEVICE_KEY, issuedAt: Date.now() - 401 * DAY_MS },
      { keys: parseSessionKeys(SESSION_KEYS), ttlSeconds: 800 * 24 * 60 * 60 },
    );
    journey.setCookie(`${DEVICE_CREDENTIAL_COOKIE}=${token}; Path=/; Secure; HttpOnly`);
    expectRedirect(await signIn(journey, email), DEVICE_PATH);
    expect((await journey.sealedKept("deviceCredential")).key).not.toBe(TEST_DEVICE_KEY);
  });

  it("known to one account is new to another: the second account's login from the same browser confirms", async () => {
    const known = address("accounta");
    const other = address("accountb");
    await emulator.seed({ email: known });
    await emulator.seed({ email: other, knownDevices: [] });
    const journey = new Journey();
    await expectAppGetsCode(journey, await signIn(journey, known));
    expectRedirect(await signIn(journey, other), DEVICE_PATH);
  });

  it("is what makes a device known: product §9's device id, copied alone, does not", async () => {
    const email = address("copied");
    await emulator.seed({ email, knownDevices: [] });
    const owner = new Journey({ device: "new" });
    await confirmedSignIn(owner, email);
    const deviceId = owner
      .cookieHeader("/")
      .split("; ")
      .find((pair) => pair.startsWith("__Host-device="));
    expect(deviceId).toMatch(/^__Host-device=[A-Z0-9]{32}$/);
    const copier = new Journey({ device: "new" });
    copier.setCookie(`${deviceId}; Path=/; Secure; HttpOnly`);
    expectRedirect(await signIn(copier, email), DEVICE_PATH);
  });

  it("survives sign-out: the next login from the browser asks for no code", async () => {
    const email = address("signout");
    await emulator.seed({ email, knownDevices: [] });
    const journey = new Journey({ device: "new" });
    await confirmedSignIn(journey, email);
    const signedOut = await journey.request(`/logout?client_id=${GUNGNIR.clientId}`);
    expect(signedOut.status).toBe(303);
    expect(journey.has(DEVICE_CREDENTIAL_COOKIE)).toBe(true);
    await expectAppGetsCode(journey, await signIn(journey, email));
  });
});

describe("the login context (docs/devices.md)", () => {
  it("names the device by its credential's digest, never by the credential", async () => {
    const email = address("digest");
    await emulator.seed({ email });
    // Each fault answers only a login whose body holds its text: the digest's fails the login, the key's would.
    const digestSeen = { status: 503, body: { type: "maintenance" } };
    await emulator.fault({
      pathPattern: "/auth/v1/login",
      bodyIncludes: `"device":"${TEST_DEVICE_DIGEST}"`,
      ...digestSeen,
    });
    const journey = new Journey();
    await expectModal(await signIn(journey, email), 503, "maintenance");
    await emulator.clearFaults();
    await emulator.fault({ pathPattern: "/auth/v1/login", bodyIncludes: TEST_DEVICE_KEY, ...digestSeen });
    await expectAppGetsCode(journey, await signIn(journey, email));
  });

  it("carries the edge's country: a known device in a country the account never signed in from confirms", async () => {
    const email = address("abroad");
    await emulator.seed({ email });
    const home: JourneyOptions = { cf: { country: "JP", region: "Tokyo" } };
    const journey = new Journey(home);
    await expectAppGetsCode(journey, await signIn(journey, email));
    const abroad = new Journey({ cf: { country: "US", region: "California" } });
    expectRedirect(await signIn(abroad, email), DEVICE_PATH);
  });

  it("is not sent while DEVICE_CONFIRMATION is off: no step, no credential, even for a device the account never used", async () => {
    const email = address("off");
    // An account of an identity API without the contract: a login without context is asked nothing.
    await emulator.seed({ email, knownDevices: [], deviceContract: false });
    // A login whose body carried a context would fail: this fault proves none was sent.
    await emulator.fault({ pathPattern: "/auth/v1/login", bodyIncludes: '"context"', status: 500, times: 5 });
    const journey = new Journey({ device: "new", env: { DEVICE_CONFIRMATION: "off" } });
    await expectAppGetsCode(journey, await signIn(journey, email));
    expect(journey.has(DEVICE_CREDENTIAL_COOKIE)).toBe(false);
  });

  it("while off, an upstream that asks for a device confirmation gets the unexpected-error modal", async () => {
    const email = address("offasked");
    await emulator.seed({ email });
    const asked = {
      additional_flow: { next: "device_confirmation", session: "s-0123456789", destination: "o***@example.com" },
    };
    await emulator.fault({ pathPattern: "/auth/v1/login", status: 201, body: asked });
    const journey = new Journey({ env: { DEVICE_CONFIRMATION: "off" } });
    await expectModal(await signIn(journey, email), 502, "unexpectedError");
    expect((await journey.sealedKept("signIn")).device).toBeUndefined();
  });

  it("never takes a step it does not know for the second factor", async () => {
    const email = address("unknownstep");
    await emulator.seed({ email });
    const asked = { additional_flow: { next: "mfa_email", session: "s-0123456789" } };
    await emulator.fault({ pathPattern: "/auth/v1/login", status: 201, body: asked });
    const journey = new Journey();
    await expectModal(await signIn(journey, email), 502, "unexpectedError");
    const state = await journey.sealedKept("signIn");
    expect(state.mfa).toBeUndefined();
    expect(state.device).toBeUndefined();
  });
});

describe("the device step's journey state", () => {
  it("shows the parameter problem, not a 500, without a confirmation in the sign-in cookie", async () => {
    const cookie = await sealedCookie("signIn", { loginChallenge: "challenge-0123456789", username: "a@example.com" });
    await expectModal(await postForm(DEVICE_PATH, { code: "123456" }, [cookie]), 400, "parameterError");
    await expectModal(await postForm("/signIn/device/resend", {}, [cookie]), 400, "parameterError");
    await expectModal(await postForm(DEVICE_PATH, { code: "123456" }), 400, "parameterError");
    const screen = await new Journey().request(DEVICE_PATH);
    await expectModal(screen, 400, "parameterError");
  });
});

describe("operators' log lines", () => {
  let spies: MockInstance[] = [];
  const lines = () => spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(" ")));
  beforeEach(() => {
    spies = (["log", "info", "warn", "error"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation(() => {}),
    );
  });
  afterEach(() => {
    for (const spy of spies) spy.mockRestore();
  });

  it("say what happened at each step, and none of the code, the session, the address or the credential", async () => {
    const { email, journey } = await atDeviceStep("logged", { device: "new" });
    const first = await emulator.latestCode(email);
    await journey.postForm(DEVICE_PATH, { code: wrongCodeFor(first) });
    await journey.postForm("/signIn/device/resend", {});
    const code = await emulator.latestCode(email);
    const state = await journey.sealedKept("signIn");
    const { key } = await journey.sealedKept("deviceCredential");
    await expectAppGetsCode(journey, await journey.postForm(DEVICE_PATH, { code }));
    const events = lines()
      .filter((line) => line.includes('"event":"device_confirmation"'))
      .map((line) => JSON.parse(line) as { outcome: string; brand: string });
    expect(events.map((event) => event.outcome)).toEqual(["shown", "wrong_code", "resent", "confirmed"]);
    expect(new Set(events.map((event) => event.brand))).toEqual(new Set([GUNGNIR.serviceId]));
    const digest = await credentialDigest({ key });
    const secrets = [first, code, state.device?.session, state.device?.destination, email, key, digest];
    for (const line of lines()) for (const secret of secrets) expect(line).not.toContain(secret);
  });
});
