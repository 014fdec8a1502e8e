import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { TOTP_SECRET } from "../support/vocabulary";
import { contextOf, digestOf, loginFrom, seedWithDevices } from "./deviceContext";
import {
  accessTokenFor,
  bearer,
  latestMail,
  login,
  outbox,
  postJson,
  registered,
  resetEmulator,
  sampleClientIds,
  seedUser,
  setClock,
  startLogin,
  strongPassword,
} from "./emulatorClient";

// The limits table of emulator/README.md, one describe per row.

beforeEach(resetEmulator);

const email = "limits@example.jp";
const phone = "+8109012345678";

/** A 6-digit code that is not `code`. */
function wrong(code: string | null): string {
  return code === "000000" ? "111111" : "000000";
}

async function expectProblem(response: Response, status: number, type: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(await response.json()).toMatchObject({ type });
}

describe("wrong codes: 5 end what they were guessing", () => {
  async function mfaSession(mfa: { totp: string } | { sms: string }) {
    await seedUser({ email, mfa });
    const { challenge } = await startLogin();
    const response = await login(challenge, email);
    const { additional_flow } = (await response.json()) as { additional_flow: { next: string; session: string } };
    const attempt = (code: string | null) =>
      postJson("/auth/v1/login", {
        login_challenge: challenge,
        flow: additional_flow.next,
        username: email,
        session: additional_flow.session,
        code,
      });
    return { attempt };
  }

  it("kills an MFA TOTP login session after the fifth wrong code: the right one then gets challenge_expired", async () => {
    const { attempt } = await mfaSession({ totp: TOTP_SECRET });
    const right = () => new TOTP({ secret: TOTP_SECRET }).generate();
    for (let count = 1; count <= 5; count += 1) await expectProblem(await attempt(wrong(right())), 400, "invalid_code");
    await expectProblem(await attempt(right()), 410, "challenge_expired");
    await expectProblem(await attempt(wrong(right())), 410, "challenge_expired");
  });

  it("kills an MFA SMS login session after the fifth wrong code", async () => {
    const { attempt } = await mfaSession({ sms: phone });
    const { code } = await latestMail(phone);
    for (let count = 1; count <= 5; count += 1) await expectProblem(await attempt(wrong(code)), 400, "invalid_code");
    await expectProblem(await attempt(code), 410, "challenge_expired");
  });

  it("lets four wrong MFA codes pass before the right one", async () => {
    const { attempt } = await mfaSession({ sms: phone });
    const { code } = await latestMail(phone);
    for (let count = 1; count <= 4; count += 1) await expectProblem(await attempt(wrong(code)), 400, "invalid_code");
    expect((await attempt(code)).status).toBe(201);
  });

  it("kills a sign-up code after five wrong ones until a new code is sent", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    const username = await registered(challenge, email);
    const confirm = (code: string | null) =>
      postJson("/auth/v1/register/confirm", { login_challenge: challenge, username, code, remember: false });
    const { code } = await latestMail(email);
    for (let count = 1; count <= 5; count += 1) await expectProblem(await confirm(wrong(code)), 400, "invalid_code");
    await expectProblem(await confirm(code), 400, "expired_code");
    expect((await postJson("/auth/v1/register/confirm/resend", { login_challenge: challenge, username })).status).toBe(
      201,
    );
    expect((await confirm((await latestMail(email)).code)).status).toBe(201);
  });

  it("kills a password-reset code after five wrong ones until a new forgot request", async () => {
    await seedUser({ email });
    const forgot = () => postJson("/auth/v1/password/forgot", { client_id: sampleClientIds.client, username: email });
    const confirm = (code: string | null) =>
      postJson("/auth/v1/password/confirm", {
        client_id: sampleClientIds.client,
        username: email,
        new_password: "Br4nd-New-Pass",
        code,
      });
    await forgot();
    const { code } = await latestMail(email);
    for (let count = 1; count <= 5; count += 1) await expectProblem(await confirm(wrong(code)), 400, "invalid_code");
    await expectProblem(await confirm(code), 400, "expired_code");
    await forgot();
    expect((await confirm((await latestMail(email)).code)).status).toBe(201);
  });

  it("kills an e-mail registration code after five wrong ones until a new code is sent", async () => {
    await seedUser({ email, emailVerified: false });
    const token = await accessTokenFor(email);
    const send = (path: string, body: unknown) => postJson(path, body, { headers: bearer(token) });
    await send("/auth/v1/user/email", { email });
    const { code } = await latestMail(email);
    for (let count = 1; count <= 5; count += 1) {
      await expectProblem(await send("/auth/v1/user/email/confirm", { code: wrong(code) }), 400, "invalid_code");
    }
    await expectProblem(await send("/auth/v1/user/email/confirm", { code }), 400, "expired_code");
    await send("/auth/v1/user/email", { email });
    expect((await send("/auth/v1/user/email/confirm", { code: (await latestMail(email)).code })).status).toBe(201);
  });
});

describe("wrong passwords: counted per account and device", () => {
  // Devices are known by their device credential's digest (docs/devices.md); undefined is a login without context.
  const known = digestOf("known");
  const otherKnown = digestOf("otherKnown");
  const strangers = [digestOf("stranger1"), digestOf("stranger2"), undefined];
  const badPassword = "Wrong-pass1!";

  async function attempt(device: string | undefined, password = strongPassword): Promise<Response> {
    const { challenge } = await startLogin();
    // No device: a login that names none (a new device's, to an account held to the devices contract).
    return device === undefined
      ? login(challenge, email, password, undefined, { context: undefined })
      : loginFrom(challenge, email, contextOf(device), password);
  }

  /** The owner's devices: the account knows them as if each had completed a login. */
  function seedOwner(knownDevices = [known, otherKnown], changes: { mfa?: { totp: string } } = {}) {
    return seedWithDevices({ email, knownDevices, ...changes });
  }

  async function failFrom(deviceId: string | undefined, times: number): Promise<void> {
    for (let count = 0; count < times; count += 1) {
      await expectProblem(await attempt(deviceId, badPassword), 401, "invalid_credentials");
    }
  }

  it("lets a known device sign in while strangers' wrong passwords lock unknown devices", async () => {
    await seedOwner();
    for (const stranger of strangers) await failFrom(stranger, 2);
    await expectProblem(await attempt(digestOf("newPhone")), 401, "invalid_credentials");
    await expectProblem(await attempt(undefined), 401, "invalid_credentials");
    expect((await attempt(known)).status).toBe(201);
  });

  it("answers a locked attempt exactly like a wrong password", async () => {
    await seedUser({ email });
    const wrongPassword = await attempt(undefined, badPassword);
    const wrongBody = await wrongPassword.json();
    await failFrom(undefined, 4);
    const locked = await attempt(undefined);
    expect(locked.status).toBe(wrongPassword.status);
    expect(await locked.json()).toEqual(wrongBody);
  });

  it("locks unknown devices progressively: 30 s, doubling per further wrong password, at most 15 minutes", async () => {
    await seedUser({ email });
    let now = 0;
    await failFrom(undefined, 5);
    // the locks after the 5th to the 10th wrong password; the 10th would be 16 minutes without the cap
    const locks = [30, 60, 120, 240, 480, 900].map((seconds) => seconds * 1000);
    for (const [index, lock] of locks.entries()) {
      await setClock(now + lock - 1000);
      await expectProblem(await attempt(undefined), 401, "invalid_credentials");
      now += lock + 1000;
      await setClock(now);
      if (index < locks.length - 1) await failFrom(undefined, 1);
    }
    expect((await attempt(undefined)).status).toBe(201);
    // the right password reset the shared counter: the next lock is 30 s again
    await failFrom(undefined, 5);
    await setClock(now + 31_000);
    expect((await attempt(undefined)).status).toBe(201);
  });

  it("does not know a device by product §9's device_id: a copied one shares the strangers' counter", async () => {
    await seedOwner();
    const ownersDeviceId = "OWNERSDEVICE00000000000000000001";
    const fromDeviceId = async () => login((await startLogin()).challenge, email, strongPassword, ownersDeviceId);
    // A completed login names the device_id; it proves nothing, so it makes nothing known.
    expect((await fromDeviceId()).status).toBe(201);
    await failFrom(undefined, 5);
    await expectProblem(await fromDeviceId(), 401, "invalid_credentials");
    expect((await attempt(known)).status).toBe(201);
  });

  it("gives a known device its own counter: 5 wrong lock only that device, for 15 minutes", async () => {
    await seedOwner();
    await failFrom(known, 4);
    expect((await attempt(known)).status).toBe(201);
    await failFrom(known, 5);
    await expectProblem(await attempt(known), 401, "invalid_credentials");
    expect((await attempt(otherKnown)).status).toBe(201);
    expect((await attempt(strangers[0])).status).toBe(201);
    await setClock(15 * 60_000 - 1000);
    await expectProblem(await attempt(known), 401, "invalid_credentials");
    await setClock(15 * 60_000 + 1000);
    expect((await attempt(known)).status).toBe(201);
  });

  it("knows a device only once its login is complete, second factor included", async () => {
    await seedOwner([], { mfa: { totp: TOTP_SECRET } });
    const pending = await attempt(known);
    expect(await pending.json()).toMatchObject({ additional_flow: { next: "mfa_totp" } });
    await failFrom(undefined, 5);
    await expectProblem(await attempt(known), 401, "invalid_credentials");
  });

  it("ends every lock with a password reset", async () => {
    await seedOwner();
    await failFrom(known, 5);
    await failFrom(undefined, 5);
    await postJson("/auth/v1/password/forgot", { client_id: sampleClientIds.client, username: email });
    const reset = await postJson("/auth/v1/password/confirm", {
      client_id: sampleClientIds.client,
      username: email,
      new_password: "Br4nd-New-Pass",
      code: (await latestMail(email)).code,
    });
    expect(reset.status).toBe(201);
    expect((await attempt(known, "Br4nd-New-Pass")).status).toBe(201);
    expect((await attempt(undefined, "Br4nd-New-Pass")).status).toBe(201);
  });
});

describe("mail sent on request: resends and reset mails per user", () => {
  it("resends the sign-up code at most 3 times in 10 minutes, then answers 429 too_many_requests", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    const username = await registered(challenge, email);
    const resend = (who = username) =>
      postJson("/auth/v1/register/confirm/resend", { login_challenge: challenge, username: who });
    for (let count = 1; count <= 3; count += 1) {
      await setClock(count * 60_000);
      expect((await resend()).status).toBe(201);
    }
    const refused = await resend();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ type: "too_many_requests", detail: expect.any(String) });
    // the first resend (at 1 min) leaves the window at 11 min
    expect(refused.headers.get("retry-after")).toBe("480");
    expect(await outbox(email)).toHaveLength(4);

    await setClock(11 * 60_000 + 1000);
    expect((await resend()).status).toBe(201);
    expect(await outbox(email)).toHaveLength(5);
  });

  it("counts resends for an unknown username the same way, so the refusal tells nothing", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    const resend = () =>
      postJson("/auth/v1/register/confirm/resend", { login_challenge: challenge, username: "nobody" });
    for (let count = 1; count <= 3; count += 1) expect((await resend()).status).toBe(201);
    await expectProblem(await resend(), 429, "too_many_requests");
  });

  it("mails at most 5 reset links an hour per account, then still answers 201 but sends nothing", async () => {
    const username = await seedUser({ email });
    const forgot = (loginId: string) =>
      postJson("/auth/v1/password/forgot", { client_id: sampleClientIds.client, username: loginId });
    for (const loginId of [email, username, email, "LIMITS@example.jp", email]) {
      expect((await forgot(loginId)).status).toBe(201);
    }
    expect(await outbox(email)).toHaveLength(5);
    const { code } = await latestMail(email);
    const sixth = await forgot(email);
    expect(sixth.status).toBe(201);
    expect(await sixth.json()).toEqual({});
    expect(await outbox(email)).toHaveLength(5);
    // the last mailed code is still the one that works
    const confirmed = await postJson("/auth/v1/password/confirm", {
      client_id: sampleClientIds.client,
      username: email,
      new_password: "Br4nd-New-Pass",
      code,
    });
    expect(confirmed.status).toBe(201);

    await setClock(3_600_000 + 1000);
    expect((await forgot(email)).status).toBe(201);
    // the 6th link, after the notice that the password was changed
    expect((await outbox(email)).filter((mail) => mail.link !== null)).toHaveLength(6);
  });
});
