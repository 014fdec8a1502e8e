import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { TOTP_SECRET } from "../support/vocabulary";
import {
  call,
  follow,
  latestMail,
  login,
  outbox,
  postJson,
  resetEmulator,
  seedUser,
  setClock,
  startLogin,
  strongPassword,
} from "./emulatorClient";

beforeEach(resetEmulator);

const email = "login@example.jp";
const phone = "+8109012345678";

function totpCode(offsetMs = 0): string {
  return new TOTP({ secret: TOTP_SECRET }).generate({ timestamp: Date.now() + offsetMs });
}

function loginFlow(body: Record<string, unknown>): Promise<Response> {
  return postJson("/auth/v1/login", body);
}

async function expectProblem(response: Response, status: number, type: string, detail?: string): Promise<void> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { type: string; detail: string };
  expect(body.type).toBe(type);
  if (detail !== undefined) expect(body.detail).toBe(detail);
}

async function additionalFlow(response: Response): Promise<{ next: string; session: string }> {
  expect(response.status).toBe(201);
  return ((await response.json()) as { additional_flow: { next: string; session: string } }).additional_flow;
}

describe("flow email_password", () => {
  it("accepts the e-mail or the username, in any letter case for the e-mail", async () => {
    const username = await seedUser({ email });
    for (const loginId of [email, "LOGIN@Example.JP", username]) {
      const { challenge } = await startLogin();
      const response = await login(challenge, loginId);
      expect(response.status).toBe(201);
      const body = (await response.json()) as { redirect_to: string };
      expect(body.redirect_to).toMatch(/^http:\/\/localhost:5173\/oauth2\/auth\?.*login_verifier=/);
    }
  });

  it("answers one invalid_credentials for a wrong password, an unknown user and an unconfirmed one", async () => {
    await seedUser({ email });
    await seedUser({ email: "pending@example.jp", confirmed: false });
    const detail = "Incorrect username or password.";
    await expectProblem(
      await login((await startLogin()).challenge, email, "Wrong-pass1!"),
      401,
      "invalid_credentials",
      detail,
    );
    await expectProblem(
      await login((await startLogin()).challenge, "nobody@example.jp"),
      401,
      "invalid_credentials",
      detail,
    );
    await expectProblem(
      await login((await startLogin()).challenge, "pending@example.jp"),
      401,
      "invalid_credentials",
      detail,
    );
  });

  // Until the per-device rule (README, Limits), this locked every device for 15 minutes.
  it("locks unknown devices for 30 seconds after 5 wrong passwords in a row, with the same answer", async () => {
    await seedUser({ email });
    const { challenge } = await startLogin();
    // A login that names no device is an unknown device's.
    const unknown = (password?: string) => login(challenge, email, password, undefined, { context: undefined });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await expectProblem(await unknown("Wrong-pass1!"), 401, "invalid_credentials");
    }
    const user = (await (await call(`/__emulator/users/${email}`)).json()) as { lockedUntil: string | null };
    expect(user.lockedUntil).not.toBeNull();
    await expectProblem(await unknown(), 401, "invalid_credentials", "Incorrect username or password.");
    await setClock(29_000);
    await expectProblem(await unknown(), 401, "invalid_credentials");
    await setClock(31_000);
    expect((await unknown()).status).toBe(201);
  });

  it("counts only wrong passwords in a row", async () => {
    await seedUser({ email });
    for (let attempt = 0; attempt < 4; attempt += 1) await login((await startLogin()).challenge, email, "Wrong-pass1!");
    expect((await login((await startLogin()).challenge, email)).status).toBe(201);
    for (let attempt = 0; attempt < 4; attempt += 1) await login((await startLogin()).challenge, email, "Wrong-pass1!");
    expect((await login((await startLogin()).challenge, email)).status).toBe(201);
  });

  it("refuses a user in system transfer with reject_login", async () => {
    await seedUser({ email, transferInProgress: true });
    await expectProblem(
      await login((await startLogin()).challenge, email),
      403,
      "reject_login",
      "System transfer in progress",
    );
  });

  it("validates the body", async () => {
    const { challenge } = await startLogin();
    for (const body of [
      { login_challenge: challenge, flow: "email_password", username: email },
      { login_challenge: challenge, flow: "magic_link", username: email, password: strongPassword },
      { flow: "email_password", username: email, password: strongPassword },
    ]) {
      await expectProblem(await loginFlow(body), 400, "invalid_request");
    }
    const notJson = await call("/auth/v1/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    await expectProblem(notJson, 400, "invalid_request");
  });
});

describe("flow mfa_totp", () => {
  it("asks for the code, accepts one step of drift and refuses a wrong one", async () => {
    await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    const { challenge } = await startLogin();
    const { next, session } = await additionalFlow(await login(challenge, email));
    expect(next).toBe("mfa_totp");
    const wrongCode = String((Number(totpCode()) + 500_000) % 1_000_000).padStart(6, "0");
    await expectProblem(
      await loginFlow({ login_challenge: challenge, flow: "mfa_totp", username: email, session, code: wrongCode }),
      400,
      "invalid_code",
    );
    await expectProblem(
      await loginFlow({
        login_challenge: challenge,
        flow: "mfa_totp",
        username: email,
        session,
        code: totpCode(-90_000),
      }),
      400,
      "invalid_code",
    );
    const accepted = await loginFlow({
      login_challenge: challenge,
      flow: "mfa_totp",
      username: email,
      session,
      code: totpCode(-30_000),
    });
    expect(accepted.status).toBe(201);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    expect(new URL((await follow(redirect_to)).location).searchParams.get("code")).toBeTruthy();
    await expectProblem(
      await loginFlow({ login_challenge: challenge, flow: "mfa_totp", username: email, session, code: totpCode() }),
      404,
      "challenge_not_found",
    );
  });

  it("follows the emulator clock", async () => {
    await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    await setClock(600_000);
    const { challenge } = await startLogin();
    const { session } = await additionalFlow(await login(challenge, email));
    await expectProblem(
      await loginFlow({ login_challenge: challenge, flow: "mfa_totp", username: email, session, code: totpCode() }),
      400,
      "invalid_code",
    );
    expect(
      (
        await loginFlow({
          login_challenge: challenge,
          flow: "mfa_totp",
          username: email,
          session,
          code: totpCode(600_000),
        })
      ).status,
    ).toBe(201);
  });

  it("ties the session to its challenge and its flow, and expires it after 10 minutes", async () => {
    await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    const first = await startLogin();
    const other = await startLogin();
    const { session } = await additionalFlow(await login(first.challenge, email));
    await expectProblem(
      await loginFlow({
        login_challenge: other.challenge,
        flow: "mfa_totp",
        username: email,
        session,
        code: totpCode(),
      }),
      404,
      "challenge_not_found",
    );
    await expectProblem(
      await loginFlow({ login_challenge: first.challenge, flow: "mfa_sms", username: email, session, code: "123456" }),
      404,
      "challenge_not_found",
    );
    await expectProblem(
      await loginFlow({
        login_challenge: first.challenge,
        flow: "mfa_totp",
        username: email,
        session: "made-up",
        code: totpCode(),
      }),
      404,
      "challenge_not_found",
    );
    await setClock(10 * 60_000 + 1000);
    await expectProblem(
      await loginFlow({
        login_challenge: first.challenge,
        flow: "mfa_totp",
        username: email,
        session,
        code: totpCode(10 * 60_000 + 1000),
      }),
      410,
      "challenge_expired",
    );
  });
});

describe("flow mfa_sms", () => {
  it("texts a 6-digit code to the phone and accepts it once", async () => {
    await seedUser({ email, mfa: { sms: phone } });
    const { challenge } = await startLogin();
    const { next, session } = await additionalFlow(await login(challenge, email));
    expect(next).toBe("mfa_sms");
    const sms = await latestMail(phone);
    expect(sms).toMatchObject({ kind: "sms", to: phone, code: expect.stringMatching(/^\d{6}$/) });
    expect(sms.text).toContain(sms.code ?? "");
    expect(sms.text).toContain("3分");
    const wrongCode = sms.code === "000000" ? "111111" : "000000";
    await expectProblem(
      await loginFlow({ login_challenge: challenge, flow: "mfa_sms", username: email, session, code: wrongCode }),
      400,
      "invalid_code",
    );
    expect(
      (await loginFlow({ login_challenge: challenge, flow: "mfa_sms", username: email, session, code: sms.code }))
        .status,
    ).toBe(201);
  });

  it("expires the code after 3 minutes", async () => {
    await seedUser({ email, mfa: { sms: phone } });
    const { challenge } = await startLogin();
    const { session } = await additionalFlow(await login(challenge, email));
    const { code } = await latestMail(phone);
    await setClock(3 * 60_000 + 1000);
    await expectProblem(
      await loginFlow({ login_challenge: challenge, flow: "mfa_sms", username: email, session, code }),
      400,
      "expired_code",
    );
  });
});

describe("flow new_password", () => {
  it("requires a password by the rules, then completes the login", async () => {
    await seedUser({ email, forceChangePassword: true });
    const { challenge } = await startLogin();
    const { next, session } = await additionalFlow(await login(challenge, email));
    expect(next).toBe("new_password");
    await expectProblem(
      await loginFlow({
        login_challenge: challenge,
        flow: "new_password",
        username: email,
        session,
        password: "short",
      }),
      400,
      "invalid_request",
    );
    const accepted = await loginFlow({
      login_challenge: challenge,
      flow: "new_password",
      username: email,
      session,
      password: "N3w-Passw0rd",
    });
    expect(accepted.status).toBe(201);
    expect(await accepted.json()).toHaveProperty("redirect_to");
    await expectProblem(await login((await startLogin()).challenge, email), 401, "invalid_credentials");
    expect((await login((await startLogin()).challenge, email, "N3w-Passw0rd")).status).toBe(201);
  });

  it("asks for a new password when the site says the right password is leaked, only after the second factor, and keeps asking until it changes", async () => {
    await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    const leaked = { password_leaked: true };
    const account = async () => (await (await call(`/__emulator/users/${email}`)).json()) as Record<string, unknown>;
    const { challenge } = await startLogin();
    const first = await additionalFlow(await login(challenge, email, undefined, undefined, leaked));
    // A stranger with the password alone gets no further than the second factor, and changes nothing.
    expect(first.next).toBe("mfa_totp");
    expect((await account()).forceChangePassword).toBe(false);
    const totp = { login_challenge: challenge, flow: "mfa_totp", username: email, session: first.session };
    const second = await additionalFlow(await loginFlow({ ...totp, code: totpCode() }));
    expect(second.next).toBe("new_password");
    expect((await account()).forceChangePassword).toBe(true);
    // Left at that step, the next login (even one that says nothing of the list) still has to change it.
    const again = await startLogin();
    const next = await additionalFlow(await login(again.challenge, email));
    const third = await additionalFlow(
      await loginFlow({ ...totp, login_challenge: again.challenge, session: next.session, code: totpCode(30_000) }),
    );
    expect(third.next).toBe("new_password");
    const changed = await loginFlow({
      login_challenge: again.challenge,
      flow: "new_password",
      username: email,
      session: third.session,
      password: "N3w-Passw0rd",
    });
    expect(await changed.json()).toHaveProperty("redirect_to");
    expect((await account()).forceChangePassword).toBe(false);
  });

  it("treats a wrong password sent as leaked as wrong, and marks nothing", async () => {
    await seedUser({ email });
    const wrong = await login((await startLogin()).challenge, email, "Wrong-pass1!", undefined, {
      password_leaked: true,
    });
    await expectProblem(wrong, 401, "invalid_credentials");
    const user = (await (await call(`/__emulator/users/${email}`)).json()) as { forceChangePassword: boolean };
    expect(user.forceChangePassword).toBe(false);
    // Only `true` is a claim; anything else is a malformed body.
    const malformed = await login((await startLogin()).challenge, email, undefined, undefined, {
      password_leaked: "yes",
    });
    await expectProblem(malformed, 400, "invalid_request");
  });

  it("comes after the second factor: the password stays until every factor has passed", async () => {
    await seedUser({ email, forceChangePassword: true, mfa: { totp: TOTP_SECRET } });
    const { challenge } = await startLogin();
    const first = await additionalFlow(await login(challenge, email));
    expect(first.next).toBe("mfa_totp");
    // The new-password flow on the second factor's session is another step's: refused, nothing written.
    const early = { login_challenge: challenge, flow: "new_password", username: email, password: "N3w-Passw0rd" };
    await expectProblem(await loginFlow({ ...early, session: first.session }), 404, "challenge_not_found");
    const second = await additionalFlow(
      await loginFlow({
        login_challenge: challenge,
        flow: "mfa_totp",
        username: email,
        session: first.session,
        code: totpCode(),
      }),
    );
    expect(second.next).toBe("new_password");
    expect((await login((await startLogin()).challenge, email)).status).toBe(201);
    const accepted = await loginFlow({ ...early, session: second.session });
    expect(await accepted.json()).toHaveProperty("redirect_to");
    await expectProblem(await login((await startLogin()).challenge, email), 401, "invalid_credentials");
  });

  it("skips the symbol rule for liqueur-lemon", async () => {
    await seedUser({ email, forceChangePassword: true });
    const { challenge } = await startLogin({
      client: "irz7ag7wlvichh4nhcvnj8t5g7",
      redirectUri: "https://app.liqueur-lemon.example/oauth/callback",
    });
    const { session } = await additionalFlow(await login(challenge, email));
    expect(
      (
        await loginFlow({
          login_challenge: challenge,
          flow: "new_password",
          username: email,
          session,
          password: "NoSymbol123",
        })
      ).status,
    ).toBe(201);
  });
});

describe("later steps name the user (product §7 login body)", () => {
  it("refuses a second-factor or new-password step without a username", async () => {
    await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    const { challenge } = await startLogin();
    const { session } = await additionalFlow(await login(challenge, email));
    await expectProblem(
      await loginFlow({ login_challenge: challenge, flow: "mfa_totp", session, code: totpCode() }),
      400,
      "invalid_request",
    );
    await seedUser({ email: "forced@example.jp", forceChangePassword: true });
    const forced = await startLogin();
    const pending = await additionalFlow(await login(forced.challenge, "forced@example.jp"));
    await expectProblem(
      await loginFlow({
        login_challenge: forced.challenge,
        flow: "new_password",
        session: pending.session,
        password: "N3w-Passw0rd",
      }),
      400,
      "invalid_request",
    );
  });

  it("answers another user's name like an unknown session, and takes the same user by e-mail or login ID", async () => {
    const username = await seedUser({ email, mfa: { totp: TOTP_SECRET } });
    await seedUser({ email: "someone.else@example.jp" });
    const { challenge } = await startLogin();
    const { session } = await additionalFlow(await login(challenge, email));
    const step = (name: string) =>
      loginFlow({ login_challenge: challenge, flow: "mfa_totp", username: name, session, code: totpCode() });
    for (const other of ["someone.else@example.jp", "nobody@example.jp"])
      await expectProblem(await step(other), 404, "challenge_not_found", "The session is unknown or was already used.");
    expect((await step(username)).status).toBe(201);

    const again = await startLogin();
    const next = await additionalFlow(await login(again.challenge, email));
    const accepted = await loginFlow({
      login_challenge: again.challenge,
      flow: "mfa_totp",
      username: "LOGIN@Example.JP",
      session: next.session,
      code: totpCode(),
    });
    expect(accepted.status).toBe(201);
  });

  it("ends the session after five wrong names, as after five wrong codes", async () => {
    await seedUser({ email, forceChangePassword: true });
    await seedUser({ email: "someone.else@example.jp" });
    const { challenge } = await startLogin();
    const { session } = await additionalFlow(await login(challenge, email));
    const step = (name: string) =>
      loginFlow({
        login_challenge: challenge,
        flow: "new_password",
        username: name,
        session,
        password: "N3w-Passw0rd",
      });
    for (let count = 1; count <= 5; count += 1)
      await expectProblem(await step("someone.else@example.jp"), 404, "challenge_not_found");
    await expectProblem(await step(email), 410, "challenge_expired");
  });
});

describe("outbox stays quiet", () => {
  it("sends nothing for a plain password login but its notice", async () => {
    await seedUser({ email });
    await login((await startLogin()).challenge, email);
    expect((await outbox(email)).map((item) => item.subject)).toEqual([expect.stringContaining("ログインのお知らせ")]);
  });
});
