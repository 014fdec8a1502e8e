import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { deviceCodeWrongAccount, sendLimits } from "../../emulator/contract/limits";
import { TOTP_SECRET } from "../support/vocabulary";
import { contextOf, digestOf, finishLogin, loginFrom, seedWithDevices, tokensFrom } from "./deviceContext";
import {
  bearer,
  call,
  follow,
  latestMail,
  outbox,
  postJson,
  refresh,
  resetEmulator,
  setClock,
  startLogin,
  strongPassword,
} from "./emulatorClient";

// docs/devices.md: what shuts an intruder out. Each test is the intruder's next step after the owner's remedy: an
// intruder who relayed the password, the app code and the mailed device code in real time holds a session, tokens
// and a device the account knows.

beforeEach(resetEmulator);

const email = "owner@example.jp";
const laptop = digestOf("ownersLaptop");
const intruder = digestOf("intruder");
const hour = 60 * 60_000;
const newPassword = "N3w-Passw0rd!";

async function expectProblem(response: Response, status: number, type: string): Promise<void> {
  const body = await response.json();
  expect({ status: response.status, body }).toMatchObject({ status, body: { type } });
}

async function profileStatus(token: string): Promise<number> {
  return (await call("/auth/v1/user/profile", { headers: bearer(token) })).status;
}

/** What the password step answers from `device`: `next` of its additional flow, or "accepted". */
async function nextFrom(device: string, password = strongPassword): Promise<string> {
  const response = await loginFrom((await startLogin()).challenge, email, contextOf(device), password);
  const body = (await response.json()) as { redirect_to?: string; additional_flow?: { next: string }; type?: string };
  return body.redirect_to !== undefined
    ? "accepted"
    : (body.additional_flow?.next ?? `${response.status} ${body.type}`);
}

/** The newest 「パスワードが変更されました」 notice. */
async function passwordNotice(): Promise<{ text: string }> {
  const notice = (await outbox(email)).find((mail) => mail.subject.includes("パスワードが変更されました"));
  if (notice === undefined) throw new Error("no password notice");
  return notice;
}

/** The owner on the laptop and the intruder on a device the account knows, both signed in, with their tokens. */
async function ownerAndIntruder() {
  await seedWithDevices({ email, knownDevices: [laptop, intruder] });
  const owner = await tokensFrom(email, contextOf(laptop));
  const stranger = await tokensFrom(email, contextOf(intruder, { country: "JP", region: "Osaka" }));
  return { owner, stranger };
}

/** The intruder's login accepted but not yet resumed at /oauth2/auth: a login verifier in flight. */
async function pendingLogin(): Promise<{ redirectTo: string; verifier: string }> {
  const { challenge, verifier } = await startLogin();
  const response = await loginFrom(challenge, email, contextOf(intruder));
  return { redirectTo: ((await response.json()) as { redirect_to: string }).redirect_to, verifier };
}

describe("a password changed while signed in", () => {
  it("ends every other session, token and pending login, and forgets every other device; the asking browser stays", async () => {
    const { owner, stranger } = await ownerAndIntruder();
    const pending = await pendingLogin();
    const changed = await call("/auth/v1/user/password", {
      method: "PATCH",
      headers: { ...bearer(owner.access_token), "content-type": "application/json" },
      body: JSON.stringify({ password: strongPassword, new_password: newPassword }),
    });
    expect(changed.status).toBe(200);
    // The intruder: tokens refused, the pending login refused, and the device asked for a code again.
    expect(await profileStatus(stranger.access_token)).toBe(401);
    expect(await (await refresh(stranger.refresh_token)).json()).toMatchObject({ error: "invalid_grant" });
    const resumed = await follow(pending.redirectTo);
    expect(resumed.location.searchParams.get("error")).toBe("invalid_request");
    expect(await nextFrom(intruder, newPassword)).toBe("device_confirmation");
    // The owner: still signed in, and the laptop still known.
    expect(await profileStatus(owner.access_token)).toBe(200);
    expect((await refresh(owner.refresh_token)).status).toBe(200);
    expect(await nextFrom(laptop, newPassword)).toBe("accepted");
    expect((await passwordNotice()).text).toContain("お手続きをした端末以外のすべての端末をログアウトしました");
  });
});

describe("a password reset by the mailed code", () => {
  async function reset(context?: ReturnType<typeof contextOf>): Promise<void> {
    const clientId = new URL((await startLogin()).loginUrl).searchParams.get("client_id") ?? "";
    await postJson("/auth/v1/password/forgot", { client_id: clientId, username: email });
    const code = (await outbox(email)).find((mail) => mail.code)?.code;
    const confirmed = await postJson("/auth/v1/password/confirm", {
      client_id: clientId,
      username: email,
      code,
      new_password: newPassword,
      ...(context === undefined ? {} : { context }),
    });
    expect(confirmed.status).toBe(201);
  }

  it("ends every session and token, and forgets every device but the resetting browser when it was known", async () => {
    const { owner, stranger } = await ownerAndIntruder();
    await reset(contextOf(laptop));
    for (const tokens of [owner, stranger]) {
      expect(await profileStatus(tokens.access_token)).toBe(401);
      expect(await (await refresh(tokens.refresh_token)).json()).toMatchObject({ error: "invalid_grant" });
    }
    expect(await nextFrom(intruder, newPassword)).toBe("device_confirmation");
    expect(await nextFrom(laptop, newPassword)).toBe("accepted");
    const notice = await passwordNotice();
    expect(notice.text).toContain("すべての端末をログアウトしました");
    expect(notice.text).toContain("端末: Chrome（Windows）");
  });

  it("forgets every device when the resetting browser names none the account knows", async () => {
    await ownerAndIntruder();
    await reset();
    expect(await nextFrom(laptop, newPassword)).toBe("device_confirmation");
    expect((await passwordNotice()).text).toContain("端末: 不明な端末");
  });
});

describe("a new password due at sign-in (leaked, or forced)", () => {
  const _totp = () => new TOTP({ secret: TOTP_SECRET }).generate();

  it("comes after every factor: a stranger with the leaked password alone changes nothing", async () => {
    await seedWithDevices({ email, knownDevices: [laptop], mfa: { totp: TOTP_SECRET } });
    const { challenge } = await startLogin();
    const stopped = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "email_password",
      username: email,
      password: strongPassword,
      password_leaked: true,
      context: contextOf(intruder),
    });
    const first = (await stopped.json()) as { additional_flow: { next: string; session: string } };
    expect(first.additional_flow.next).toBe("mfa_totp");
    const account = async () => (await (await call(`/__emulator/users/${email}`)).json()) as Record<string, unknown>;
    expect((await account()).forceChangePassword).toBe(false);
    // Whatever the stranger sends as a new password on that session is refused, and the owner's password stands.
    const early = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "new_password",
      username: email,
      session: first.additional_flow.session,
      password: "Str4nger-Pass!",
      context: contextOf(intruder),
    });
    await expectProblem(early, 404, "challenge_not_found");
    expect(await nextFrom(laptop)).toBe("mfa_totp");
    expect(await nextFrom(laptop, "Str4nger-Pass!")).toBe("401 invalid_credentials");
  });

  it("ends every other session and forgets every other device once set, as a change does", async () => {
    const { stranger } = await ownerAndIntruder();
    const { challenge, verifier } = await startLogin();
    const leaked = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "email_password",
      username: email,
      password: strongPassword,
      password_leaked: true,
      context: contextOf(laptop),
    });
    const { additional_flow } = (await leaked.json()) as { additional_flow: { next: string; session: string } };
    expect(additional_flow.next).toBe("new_password");
    // Asked, not yet set: nothing has changed.
    expect(await profileStatus(stranger.access_token)).toBe(200);
    const changed = await postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "new_password",
      username: email,
      session: additional_flow.session,
      password: newPassword,
      context: contextOf(laptop),
    });
    const owner = await finishLogin(((await changed.json()) as { redirect_to: string }).redirect_to, verifier);
    expect(await profileStatus(owner.access_token)).toBe(200);
    expect(await profileStatus(stranger.access_token)).toBe(401);
    expect(await (await refresh(stranger.refresh_token)).json()).toMatchObject({ error: "invalid_grant" });
    expect(await nextFrom(intruder, newPassword)).toBe("device_confirmation");
    expect(await nextFrom(laptop, newPassword)).toBe("accepted");
  });
});

describe("device codes: limited per account, every login session together", () => {
  /** A login from a new device, stopped at its mailed code: the challenge and session. */
  async function newDeviceLogin(label: string) {
    const { challenge, verifier } = await startLogin();
    const response = await loginFrom(challenge, email, contextOf(digestOf(label)));
    const body = (await response.clone().json()) as {
      additional_flow?: { next: string; session: string };
      type?: string;
    };
    return { challenge, verifier, response, body };
  }

  function confirm(challenge: string, session: string, code: string, label: string): Promise<Response> {
    return postJson("/auth/v1/login", {
      login_challenge: challenge,
      flow: "device_confirmation",
      username: email,
      session,
      code,
      context: contextOf(digestOf(label)),
    });
  }

  const wrong = (code: string) => (code === "000000" ? "111111" : "000000");
  const suspensions = async () =>
    (await outbox(email)).filter((mail) => mail.subject.includes("新しい端末からのログインを停止しました"));

  it("suspends new devices after the account's wrong codes reach the limit; known devices still sign in", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    // A session opened before the limit, holding the right code: refused all the same afterwards.
    const waiting = await newDeviceLogin("waiting");
    const waitingCode = (await latestMail(email)).code ?? "";
    let wrongCodes = 0;
    for (const label of ["first", "second"]) {
      const { challenge, body } = await newDeviceLogin(label);
      const session = body.additional_flow?.session ?? "";
      const code = (await latestMail(email)).code ?? "";
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        wrongCodes += 1;
        const answer = await confirm(challenge, session, wrong(code), label);
        if (wrongCodes < deviceCodeWrongAccount.count) await expectProblem(answer, 400, "invalid_code");
        else await expectProblem(answer, 429, "new_devices_suspended");
      }
    }
    const refused = await confirm(
      waiting.challenge,
      waiting.body.additional_flow?.session ?? "",
      waitingCode,
      "waiting",
    );
    await expectProblem(refused, 429, "new_devices_suspended");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // A fourth new browser gets no code at all.
    const before = (await outbox(email)).filter((mail) => mail.code).length;
    const fourth = await newDeviceLogin("fourth");
    await expectProblem(fourth.response, 429, "new_devices_suspended");
    expect((await outbox(email)).filter((mail) => mail.code)).toHaveLength(before);
    // The owner: one notice, and the known laptop signs in.
    expect(await suspensions()).toHaveLength(1);
    expect((await suspensions())[0]?.text).toContain("パスキーでは、これまでどおりログインできます");
    expect(await nextFrom(laptop)).toBe("accepted");
    // An hour after the first wrong code, a new device is asked for a code again.
    await setClock(deviceCodeWrongAccount.windowMs + 1000);
    expect((await newDeviceLogin("later")).body.additional_flow?.next).toBe("device_confirmation");
  });

  it("mails at most the account's limit of device codes an hour, resends included; the rest is refused the same way", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    const { challenge, body } = await newDeviceLogin("first");
    const session = body.additional_flow?.session ?? "";
    expect((await postJson("/auth/v1/login/device/resend", { login_challenge: challenge, session })).status).toBe(201);
    for (let login = 3; login <= sendLimits.deviceCodeAccount.count; login += 1)
      expect((await newDeviceLogin(`login${login}`)).body.additional_flow?.next).toBe("device_confirmation");
    await expectProblem((await newDeviceLogin("one-too-many")).response, 429, "new_devices_suspended");
    await expectProblem(
      await postJson("/auth/v1/login/device/resend", { login_challenge: challenge, session }),
      429,
      "new_devices_suspended",
    );
    expect((await outbox(email)).filter((mail) => mail.code)).toHaveLength(sendLimits.deviceCodeAccount.count);
    expect(await suspensions()).toHaveLength(1);
    expect(await nextFrom(laptop)).toBe("accepted");
    await setClock(hour + 1000);
    expect((await newDeviceLogin("later")).body.additional_flow?.next).toBe("device_confirmation");
  });

  it("counts only device codes: the account's own logins from known devices never suspend it", async () => {
    await seedWithDevices({ email, knownDevices: [laptop] });
    for (let count = 0; count < 12; count += 1) expect(await nextFrom(laptop)).toBe("accepted");
    expect((await newDeviceLogin("new")).body.additional_flow?.next).toBe("device_confirmation");
  });
});
