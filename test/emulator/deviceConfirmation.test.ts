import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { type CreationOptionsJSON, type RequestOptionsJSON, SoftAuthenticator } from "../support/softAuthenticator";
import { TOTP_SECRET } from "../support/vocabulary";
import { contextOf, digestOf, finishLogin, loginFrom, seedWithDevices, tokensFrom } from "./deviceContext";
import {
  bearer,
  call,
  latestMail,
  login,
  outbox,
  postJson,
  register,
  resetEmulator,
  setClock,
  site,
  startLogin,
  strongPassword,
} from "./emulatorClient";

// docs/devices.md: the login context, the device policy and the device confirmation step.

beforeEach(resetEmulator);

const email = "devices@example.jp";
const known = digestOf("known");
const unknown = digestOf("unknown");
const minute = 60_000;

type Session = { session: string };

interface DeviceConfirmation {
  next: "device_confirmation";
  session: string;
  destination: string;
}

async function expectProblem(response: Response, status: number, type: string): Promise<void> {
  const body = await response.json();
  expect({ status: response.status, body }).toMatchObject({ status, body: { type } });
}

/** The answer of a login step that asks to confirm the device. */
async function confirmationAsked(response: Response): Promise<DeviceConfirmation> {
  const body = (await response.json()) as { additional_flow?: DeviceConfirmation };
  expect({ status: response.status, body }).toMatchObject({
    status: 201,
    body: { additional_flow: { next: "device_confirmation" } },
  });
  return body.additional_flow as DeviceConfirmation;
}

/** The answer of a login step that accepts the login. */
async function accepted(response: Response): Promise<string> {
  const body = (await response.json()) as { redirect_to?: string };
  expect({ status: response.status, body }).toMatchObject({ status: 201, body: { redirect_to: expect.any(String) } });
  return body.redirect_to as string;
}

function confirmDevice(
  challenge: string,
  session: string,
  code: string | null,
  context = contextOf(unknown),
  username = email,
): Promise<Response> {
  return postJson("/auth/v1/login", {
    login_challenge: challenge,
    flow: "device_confirmation",
    username,
    session,
    code,
    context,
  });
}

function resend(challenge: string, session: string): Promise<Response> {
  return postJson("/auth/v1/login/device/resend", { login_challenge: challenge, session });
}

/** A password login from `context` that the policy stops: its challenge, verifier and confirmation. */
async function stoppedLogin(context = contextOf(unknown)) {
  const { challenge, verifier } = await startLogin();
  const confirmation = await confirmationAsked(await loginFrom(challenge, email, context));
  return { challenge, verifier, ...confirmation };
}

async function mailedCode(): Promise<string> {
  const mail = await latestMail(email);
  expect(mail.subject).toContain("新しい端末からのログイン確認コード");
  return mail.code ?? "";
}

/** Whether a password login from `context` goes straight through (no confirmation). */
async function goesStraightThrough(context: ReturnType<typeof contextOf>): Promise<boolean> {
  const response = await loginFrom((await startLogin()).challenge, email, context);
  const body = (await response.json()) as { redirect_to?: string; additional_flow?: { next: string } };
  expect(response.status).toBe(201);
  return body.redirect_to !== undefined;
}

describe("the login context", () => {
  const malformed: [string, unknown][] = [
    ["a short digest", contextOf("abc")],
    ["a digest that is not base64url", { ...contextOf(undefined), device: `${"+".repeat(42)}A` }],
    ["a digest with padding", { ...contextOf(undefined), device: `${"A".repeat(42)}=` }],
    ["a lower-case country", contextOf(known, { country: "jp" })],
    ["a three-letter country", contextOf(known, { country: "JPN" })],
    ["a region over 64 characters", contextOf(known, { region: "x".repeat(65) })],
    ["a region with a control character", contextOf(known, { region: "Tokyo\n" })],
    ["a browser not in the list", { ...contextOf(known), browser: "Opera" }],
    ["an OS not in the list", { ...contextOf(known), os: "Windows 11" }],
    ["no browser", { device: known, os: "Windows" }],
    ["a field the contract does not have", { ...contextOf(known), ip: "192.0.2.1" }],
    ["not an object", "Chrome on Windows"],
  ];

  it.each(malformed)("refuses %s with 400 invalid_request on the password step", async (_, context) => {
    await seedWithDevices({ email, knownDevices: [known] });
    const { challenge } = await startLogin();
    const response = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "email_password",
      username: email,
      password: strongPassword,
      context,
    });
    await expectProblem(response, 400, "invalid_request");
  });

  it("refuses a malformed context on the passkey result and the sign-up confirmation too", async () => {
    const context = { ...contextOf(known), browser: "Opera" };
    const { challenge } = await startLogin({ view: "signUp" });
    await expectProblem(
      await postJson("/auth/v1/register/confirm", { login_challenge: challenge, username: "u", code: "1", context }),
      400,
      "invalid_request",
    );
    const assertion = await postJson("/auth/v1/passkeys/assertion/result", {
      login_challenge: challenge,
      session: "s",
      id: "AAAA",
      rawId: "AAAA",
      type: "public-key",
      response: { clientDataJSON: "AA", authenticatorData: "AA", signature: "AA" },
      context,
    });
    expect({ status: assertion.status, body: await assertion.json() }).toMatchObject({
      status: 400,
      body: { type: "invalid_request" },
    });
  });

  it("takes a context with nothing but the browser and the OS, which then names no device", async () => {
    await seedWithDevices({ email, knownDevices: [known] });
    const context = { browser: "アプリ", os: "iOS" } as const;
    expect(await goesStraightThrough(context)).toBe(false);
  });
});

describe("the policy", () => {
  it("takes a login without context for a new device's: a mailed code, then a row and a notice of 「不明な端末」", async () => {
    await seedWithDevices({ email, knownDevices: [known] });
    const { challenge, verifier } = await startLogin();
    const none = { context: undefined };
    const { session } = await confirmationAsked(await login(challenge, email, undefined, undefined, none));
    const code = await mailedCode();
    expect((await latestMail(email)).text).toContain("端末: 不明な端末");
    const confirmed = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "device_confirmation",
      username: email,
      session,
      code,
    });
    const { access_token: token } = await finishLogin(await accepted(confirmed), verifier);
    const signIn = await latestMail(email);
    expect(signIn.subject).toContain("ログインのお知らせ");
    expect(signIn.text).toContain("端末: 不明な端末");
    const rows = await call("/auth/v1/user/signins", { headers: bearer(token) });
    expect(((await rows.json()) as { signins: unknown[] }).signins).toMatchObject([
      { method: "password", result: "success", browser: "その他", os: "その他", country: null, device_id: null },
    ]);
  });

  it("asks nothing of a login without context to an account held to no devices contract", async () => {
    await seedWithDevices({ email, deviceContract: false });
    await accepted(await login((await startLogin()).challenge, email, undefined, undefined, { context: undefined }));
    expect(await outbox(email)).toEqual([]);
  });

  it("lets a device the account knows straight through", async () => {
    await seedWithDevices({ email, knownDevices: [known] });
    expect(await goesStraightThrough(contextOf(known))).toBe(true);
  });

  it("asks an unknown device, or a browser without a device credential, to confirm with a mailed code", async () => {
    await seedWithDevices({ email, knownDevices: [known] });
    for (const context of [contextOf(unknown), contextOf(undefined)]) {
      const { session, destination } = await stoppedLogin(context);
      expect(session).not.toBe("");
      expect(destination).toBe("d***@example.jp");
      expect(await mailedCode()).toMatch(/^\d{6}$/);
    }
  });

  it("asks after the second factor and before a new password, which comes last", async () => {
    await seedWithDevices({ email, mfa: { totp: TOTP_SECRET }, forceChangePassword: true });
    const { challenge } = await startLogin();
    const step = async (body: Record<string, unknown>) => {
      const response = await postJson("/auth/v1/login", { login_challenge: challenge, username: email, ...body });
      expect(response.status).toBe(201);
      return ((await response.json()) as { additional_flow: { next: string; session: string } }).additional_flow;
    };
    const context = contextOf(unknown);
    const password = await step({ flow: "email_password", password: strongPassword, context });
    expect(password.next).toBe("mfa_totp");
    const code = new TOTP({ secret: TOTP_SECRET }).generate();
    const totp = await step({ flow: "mfa_totp", session: password.session, code, context });
    expect(totp.next).toBe("device_confirmation");
    const device = await step({
      flow: "device_confirmation",
      session: totp.session,
      code: await mailedCode(),
      context,
    });
    expect(device.next).toBe("new_password");
    // Until the last step the old password is the account's, and the device is not yet known.
    expect(await goesStraightThrough(contextOf(unknown))).toBe(false);
    const newPassword = { flow: "new_password", session: device.session, password: "N3w-Passw0rd", context };
    await accepted(await postJson("/auth/v1/login", { login_challenge: challenge, username: email, ...newPassword }));
  });

  it("holds the later steps to the password step's device", async () => {
    await seedWithDevices({ email, mfa: { totp: TOTP_SECRET }, knownDevices: [known] });
    const { challenge } = await startLogin();
    const first = await loginFrom(challenge, email, contextOf(known));
    const { session } = ((await first.json()) as { additional_flow: { session: string } }).additional_flow;
    const totp = (context: ReturnType<typeof contextOf>) =>
      postJson("/auth/v1/login", {
        login_challenge: challenge,
        flow: "mfa_totp",
        username: email,
        session,
        code: new TOTP({ secret: TOTP_SECRET }).generate(),
        context,
      });
    await expectProblem(await totp(contextOf(unknown)), 404, "challenge_not_found");
    await accepted(await totp(contextOf(known)));
  });

  it("asks a known device in a new country once the account has signed in recently, and not from a known one", async () => {
    await seedWithDevices({ email, knownDevices: [known] });
    expect(await goesStraightThrough(contextOf(known))).toBe(true);
    expect(await goesStraightThrough(contextOf(known, { country: "US", region: "California" }))).toBe(false);
    expect(await goesStraightThrough(contextOf(known, { country: "JP", region: "Osaka" }))).toBe(true);
    // A context that names no country has none to compare.
    expect(await goesStraightThrough({ device: known, browser: "Chrome", os: "Windows" })).toBe(true);
  });

  it("does not ask for a new country without successful sign-ins in the last 90 days", async () => {
    await seedWithDevices({ email, knownDevices: [known] });
    expect(await goesStraightThrough(contextOf(known, { country: "US" }))).toBe(true);
    // That sign-in is the account's history now: a third country is new.
    expect(await goesStraightThrough(contextOf(known, { country: "FR" }))).toBe(false);
    await setClock(91 * 24 * 60 * minute);
    expect(await goesStraightThrough(contextOf(known, { country: "DE" }))).toBe(true);
  });

  it("never asks a passkey login, and makes its device known", async () => {
    await seedWithDevices({ email, knownDevices: [known] });
    const { access_token: token } = await tokensFrom(email, contextOf(known));
    const authenticator = new SoftAuthenticator({ origin: site });
    await call("/auth/v1/passkeys/registration/code", { method: "POST", headers: bearer(token) });
    const options = await postJson(
      "/auth/v1/passkeys/attestation/options",
      { email_code: (await latestMail(email)).code },
      { headers: bearer(token) },
    );
    const { session: registration, ...creation } = (await options.json()) as CreationOptionsJSON & Session;
    const registered = await postJson(
      "/auth/v1/passkeys/attestation/result",
      { session: registration, ...(await authenticator.register(creation)) },
      { headers: bearer(token) },
    );
    expect(registered.status).toBe(201);

    const { challenge } = await startLogin();
    const assertionOptions = await postJson("/auth/v1/passkeys/assertion/options", { login_challenge: challenge });
    const { session, ...request } = (await assertionOptions.json()) as RequestOptionsJSON & Session;
    const result = await postJson("/auth/v1/passkeys/assertion/result", {
      login_challenge: challenge,
      session,
      context: contextOf(unknown),
      ...(await authenticator.authenticate(request)),
    });
    expect(result.status).toBe(201);
    expect(await result.json()).toMatchObject({ redirect_to: expect.any(String) });
    const notice = await latestMail(email);
    expect(notice.subject).toBe("【カザハナ証券】ログインのお知らせ");
    expect(notice.text).toContain("方法: パスキー\n");
    expect(await goesStraightThrough(contextOf(unknown))).toBe(true);
  });

  it("makes a completed sign-up's device known", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    const { username } = (await (await register(challenge, email)).json()) as { username: string };
    const confirmed = await postJson("/auth/v1/register/confirm", {
      login_challenge: challenge,
      username,
      code: (await latestMail(email)).code,
      context: contextOf(unknown),
    });
    await accepted(confirmed);
    expect(await goesStraightThrough(contextOf(unknown))).toBe(true);
    expect(await goesStraightThrough(contextOf(digestOf("another")))).toBe(false);
  });
});

describe("the confirmation", () => {
  beforeEach(async () => {
    await seedWithDevices({ email, knownDevices: [known] });
  });

  it("completes the login with the mailed code, and the device is known from then on", async () => {
    const { challenge, verifier, session } = await stoppedLogin();
    const redirectTo = await accepted(await confirmDevice(challenge, session, await mailedCode()));
    const tokens = await finishLogin(redirectTo, verifier);
    const profile = await call("/auth/v1/user/profile", { headers: bearer(tokens.access_token) });
    expect(profile.status).toBe(200);
    expect(await goesStraightThrough(contextOf(unknown))).toBe(true);
  });

  it("ends the session at the fifth wrong code: the right one then gets 410 challenge_expired", async () => {
    const { challenge, session } = await stoppedLogin();
    const code = await mailedCode();
    const wrong = code === "000000" ? "111111" : "000000";
    for (let count = 1; count <= 5; count += 1)
      await expectProblem(await confirmDevice(challenge, session, wrong), 400, "invalid_code");
    await expectProblem(await confirmDevice(challenge, session, code), 410, "challenge_expired");
    await expectProblem(await resend(challenge, session), 410, "challenge_expired");
    expect(await goesStraightThrough(contextOf(unknown))).toBe(false);
  });

  it("lives 10 minutes from its mail, then answers 410 challenge_expired", async () => {
    const first = await stoppedLogin();
    const firstCode = await mailedCode();
    const second = await stoppedLogin();
    await setClock(10 * minute - 1000);
    await accepted(await confirmDevice(second.challenge, second.session, await mailedCode()));
    await setClock(10 * minute + 1000);
    await expectProblem(await confirmDevice(first.challenge, first.session, firstCode), 410, "challenge_expired");
  });

  it("resends a new code, voiding the old one and giving the session 10 more minutes", async () => {
    const { challenge, session } = await stoppedLogin();
    const old = await mailedCode();
    await setClock(9 * minute);
    expect((await resend(challenge, session)).status).toBe(201);
    const fresh = await mailedCode();
    await setClock(18 * minute);
    if (old !== fresh) await expectProblem(await confirmDevice(challenge, session, old), 400, "invalid_code");
    await accepted(await confirmDevice(challenge, session, fresh));
  });

  it("mails at most 3 codes for one session, then 429 too_many_requests; the last code stays valid", async () => {
    const { challenge, session } = await stoppedLogin();
    for (let count = 2; count <= 3; count += 1) expect((await resend(challenge, session)).status).toBe(201);
    const third = await resend(challenge, session);
    expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
    await expectProblem(third, 429, "too_many_requests");
    expect((await outbox(email)).filter((mail) => mail.subject.includes("確認コード"))).toHaveLength(3);
    await accepted(await confirmDevice(challenge, session, await mailedCode()));
  });

  it("is used once: the session of an accepted login is gone", async () => {
    const { challenge, session } = await stoppedLogin();
    const code = await mailedCode();
    await accepted(await confirmDevice(challenge, session, code));
    await expectProblem(await confirmDevice(challenge, session, code), 404, "challenge_not_found");
    await expectProblem(await resend(challenge, session), 404, "challenge_not_found");
  });

  it("takes only its own session's code, on its own login challenge", async () => {
    const first = await stoppedLogin();
    const firstCode = await mailedCode();
    const second = await stoppedLogin();
    const secondCode = await mailedCode();
    if (firstCode !== secondCode)
      await expectProblem(await confirmDevice(second.challenge, second.session, firstCode), 400, "invalid_code");
    await expectProblem(await confirmDevice(first.challenge, second.session, secondCode), 404, "challenge_not_found");
    await expectProblem(await resend(first.challenge, second.session), 404, "challenge_not_found");
    await accepted(await confirmDevice(second.challenge, second.session, secondCode));
  });

  it("answers only the device and the user it was issued to, counting others as wrong attempts", async () => {
    const { challenge, session } = await stoppedLogin();
    const code = await mailedCode();
    const elsewhere = contextOf(digestOf("elsewhere"));
    await expectProblem(await confirmDevice(challenge, session, code, elsewhere), 404, "challenge_not_found");
    await expectProblem(
      await confirmDevice(challenge, session, code, contextOf(unknown), "someone@example.jp"),
      404,
      "challenge_not_found",
    );
    for (let count = 3; count <= 5; count += 1)
      await expectProblem(await confirmDevice(challenge, session, code, elsewhere), 404, "challenge_not_found");
    await expectProblem(await confirmDevice(challenge, session, code), 410, "challenge_expired");
  });

  it("needs a session of its own flow", async () => {
    const { challenge, session } = await stoppedLogin();
    const code = await mailedCode();
    const asTotp = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "mfa_totp",
      username: email,
      session,
      code,
      context: contextOf(unknown),
    });
    await expectProblem(asTotp, 404, "challenge_not_found");
    await accepted(await confirmDevice(challenge, session, code));
  });
});
