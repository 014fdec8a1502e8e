import { runInDurableObject } from "cloudflare:test";
import { decodeJwt, SignJWT } from "jose";
import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { passwordLockout } from "../../emulator/contract/limits";
import { loadSigningKey } from "../../emulator/crypto/signingKey";
import { TEST_DEVICE_DIGEST } from "../support/testDevice";
import { contextOf, digestOf, loginFrom, seedWithDevices, tokensFrom } from "./deviceContext";
import {
  accessTokenFor,
  appRedirectUri,
  bearer,
  call,
  fileState,
  latestLink,
  latestMail,
  login,
  outbox,
  postJson,
  refresh,
  resetEmulator,
  sampleClientIds,
  seedUser,
  setClock,
  site,
  startLogin,
  strongPassword,
  tokensFor,
} from "./emulatorClient";

beforeEach(resetEmulator);

const email = "account@example.jp";
const phone = "+8109012345678";

async function signedIn(extra: Parameters<typeof seedUser>[0] | object = {}): Promise<string> {
  await seedUser({ email, ...extra });
  return accessTokenFor(email);
}

function send(method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return postJson(path, body ?? {}, { method, headers: bearer(token) });
}

async function expectProblem(response: Response, status: number, type: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(await response.json()).toMatchObject({ type });
}

describe("bearer tokens", () => {
  it("refuses a missing, forged, expired or id token on every account call", async () => {
    const token = await signedIn();
    const [header, payload] = token.split(".");
    const forged = `${header}.${payload}.${"A".repeat(86)}`;
    const calls: [string, string][] = [
      ["GET", "/auth/v1/user/profile"],
      ["PATCH", "/auth/v1/user/password"],
      ["PATCH", "/auth/v1/user/email"],
      ["POST", "/auth/v1/user/email"],
      ["POST", "/auth/v1/user/email/confirm"],
      ["POST", "/auth/v1/user/mfa/setup"],
      ["POST", "/auth/v1/user/mfa/confirm"],
    ];
    for (const [method, path] of calls) {
      const missing = await call(path, {
        method,
        headers: method === "GET" ? {} : { "content-type": "application/json" },
        body: method === "GET" ? null : "{}",
      });
      await expectProblem(missing, 401, "unauthorized");
      await expectProblem(
        await call(path, { method, headers: bearer(forged), body: method === "GET" ? null : "{}" }),
        401,
        "unauthorized",
      );
    }
    expect((await call("/auth/v1/user/profile", { headers: bearer(token) })).status).toBe(200);
    await setClock(3_600_000 + 1000);
    await expectProblem(await call("/auth/v1/user/profile", { headers: bearer(token) }), 401, "unauthorized");
  });

  /** The token signed again with the emulator's own key (read inside its state object), claims changed. */
  async function resigned(token: string, changes: Record<string, unknown>): Promise<string> {
    const stub = fileState("global");
    const key = await runInDurableObject(stub, (_instance, state) => loadSigningKey(state.storage.sql));
    return new SignJWT({ ...decodeJwt(token), ...changes })
      .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "JWT" })
      .sign(key.privateKey);
  }

  it("refuses a token whose audience is not the registered client it names", async () => {
    const token = await signedIn();
    const profile = (bearerToken: string) => call("/auth/v1/user/profile", { headers: bearer(bearerToken) });
    expect((await profile(await resigned(token, {}))).status).toBe(200);
    for (const changes of [
      { aud: "no-such-client" },
      { aud: sampleClientIds.gungnir },
      { aud: "no-such-client", client_id: "no-such-client" },
      { aud: [] },
    ]) {
      await expectProblem(await profile(await resigned(token, changes)), 401, "unauthorized");
    }
  });

  it("refuses a token the emulator never issued, even when its signature is good", async () => {
    const token = await signedIn();
    await expectProblem(
      await call("/auth/v1/user/profile", { headers: bearer(await resigned(token, { jti: "made-up" })) }),
      401,
      "unauthorized",
    );
  });

  it("answers 403 insufficient_scope to a good token without user.write", async () => {
    await seedUser({ email });
    const openid = await tokensFor(email, { scope: "openid" });
    const partner = await tokensFor(email, {
      client: sampleClientIds.partner,
      redirectUri: appRedirectUri("liqueur-lemon-money-forword"),
      scope: "",
    });
    const wide = await tokensFor(email, { scope: "openid user.write" });
    const narrowed = (await (await refresh(wide.refresh_token, { scope: "openid" })).json()) as {
      access_token: string;
    };
    for (const token of [openid.access_token, partner.access_token, narrowed.access_token]) {
      await expectProblem(await call("/auth/v1/user/profile", { headers: bearer(token) }), 403, "insufficient_scope");
      await expectProblem(
        await send("PATCH", "/auth/v1/user/password", token, {
          password: strongPassword,
          new_password: "An0ther-Pass",
        }),
        403,
        "insufficient_scope",
      );
      await expectProblem(
        await send("POST", "/auth/v1/user/mfa/setup", token, { type: "totp" }),
        403,
        "insufficient_scope",
      );
    }
    expect((await call("/auth/v1/user/profile", { headers: bearer(wide.access_token) })).status).toBe(200);
  });

  it("refuses the token of a user that no longer exists", async () => {
    const token = await signedIn();
    await resetEmulator();
    await expectProblem(await call("/auth/v1/user/profile", { headers: bearer(token) }), 401, "unauthorized");
  });
});

describe("GET user/profile", () => {
  it("answers e-mail, username, verification and the MFA setting", async () => {
    const token = await signedIn({ emailVerified: false });
    const username = ((await (await call(`/__emulator/users/${email}`)).json()) as { username: string }).username;
    const response = await call("/auth/v1/user/profile", { headers: bearer(token) });
    expect(await response.json()).toEqual({ email, username, email_verified: false, preferred_mfa_setting: "none" });
  });
});

describe("PATCH user/password", () => {
  it("checks the current password and the rules, then changes it", async () => {
    const token = await signedIn();
    await expectProblem(
      await send("PATCH", "/auth/v1/user/password", token, { password: "Wrong-pass1!", new_password: "An0ther-Pass" }),
      400,
      "invalid_password",
    );
    await expectProblem(
      await send("PATCH", "/auth/v1/user/password", token, { password: strongPassword, new_password: "weak" }),
      400,
      "invalid_request",
    );
    await expectProblem(
      await send("PATCH", "/auth/v1/user/password", token, { password: strongPassword }),
      400,
      "invalid_request",
    );
    const changed = await send("PATCH", "/auth/v1/user/password", token, {
      password: strongPassword,
      new_password: "An0ther-Pass",
    });
    expect(changed.status).toBe(200);
    expect((await login((await startLogin()).challenge, email, "An0ther-Pass")).status).toBe(201);
  });
});

describe("PATCH user/password: wrong current passwords count like wrong login passwords", () => {
  const badPassword = "Wrong-pass1!";
  const change = (token: string, password: string) =>
    send("PATCH", "/auth/v1/user/password", token, { password, new_password: "An0ther-Pass" });
  const signsIn = async (password: string) => (await login((await startLogin()).challenge, email, password)).status;
  // The tokens and logins here come from the test device, which the account knows: its own counter locks 15 minutes.
  const knownDeviceLock = passwordLockout.knownDeviceLock + 1000;

  it("locks the token's device after 5 wrong ones, for the change and the login alike, answering as a wrong password", async () => {
    const token = await signedIn();
    for (let count = 1; count <= 5; count += 1)
      await expectProblem(await change(token, badPassword), 400, "invalid_password");
    // Locked: the right password gets the wrong-password answer, and the login from an unknown device is locked too.
    await expectProblem(await change(token, strongPassword), 400, "invalid_password");
    expect(await signsIn(strongPassword)).toBe(401);
    await setClock(knownDeviceLock);
    expect((await change(token, strongPassword)).status).toBe(200);
    expect(await signsIn("An0ther-Pass")).toBe(201);
  });

  it("counts them on the device the token's login came from, when the account knows it", async () => {
    const known = digestOf("known");
    await seedWithDevices({ email, knownDevices: [known, TEST_DEVICE_DIGEST] });
    const fromKnown = (await tokensFrom(email, contextOf(known))).access_token;
    const fromElsewhere = await accessTokenFor(email);
    for (let count = 1; count <= 5; count += 1) {
      await expectProblem(await change(fromKnown, badPassword), 400, "invalid_password");
    }
    const fromKnownAgain = await loginFrom((await startLogin()).challenge, email, contextOf(known));
    expect(fromKnownAgain.status).toBe(401);
    expect(await signsIn(strongPassword)).toBe(201);
    await expectProblem(await change(fromKnown, strongPassword), 400, "invalid_password");
    expect((await change(fromElsewhere, strongPassword)).status).toBe(200);
  });

  it("is locked by wrong login passwords, and the right current password resets the counter", async () => {
    const token = await signedIn();
    for (let count = 1; count <= 5; count += 1) expect(await signsIn(badPassword)).toBe(401);
    await expectProblem(await change(token, strongPassword), 400, "invalid_password");
    await setClock(knownDeviceLock);
    expect((await change(token, strongPassword)).status).toBe(200);
    // Without the reset these would be the 6th to 9th wrong passwords in a row, and the login locked.
    for (let count = 1; count <= 4; count += 1) {
      await expectProblem(await change(token, badPassword), 400, "invalid_password");
    }
    expect(await signsIn("An0ther-Pass")).toBe(201);
  });
});

describe("mail sent on a signed-in user's request: per account", () => {
  it("sends at most 3 registration codes in 10 minutes, then 429 with Retry-After; the last code stays valid", async () => {
    const token = await signedIn({ emailVerified: false });
    for (let count = 1; count <= 3; count += 1) {
      await setClock(count * 60_000);
      expect((await send("POST", "/auth/v1/user/email", token, { email: `n${count}@example.jp` })).status).toBe(201);
    }
    const refused = await send("POST", "/auth/v1/user/email", token, { email: "n4@example.jp" });
    await expectProblem(refused, 429, "too_many_requests");
    expect(refused.headers.get("retry-after")).toBe("480");
    expect(await outbox("n4@example.jp")).toEqual([]);
    const { code } = await latestMail("n3@example.jp");
    expect((await send("POST", "/auth/v1/user/email/confirm", token, { code })).status).toBe(201);
    expect(await (await call("/auth/v1/user/profile", { headers: bearer(token) })).json()).toMatchObject({
      email: "n3@example.jp",
    });
    await setClock(11 * 60_000 + 1000);
    expect((await send("POST", "/auth/v1/user/email", token, { email: "n5@example.jp" })).status).toBe(201);
  });

  it("mails at most 3 change links in 10 minutes, then 429 and no mail", async () => {
    const token = await signedIn();
    for (let count = 1; count <= 3; count += 1) {
      expect((await send("PATCH", "/auth/v1/user/email", token, { new_email: "moved@example.jp" })).status).toBe(200);
    }
    await expectProblem(
      await send("PATCH", "/auth/v1/user/email", token, { new_email: "moved@example.jp" }),
      429,
      "too_many_requests",
    );
    expect((await outbox(email)).filter((mail) => mail.link)).toHaveLength(3);
    await setClock(10 * 60_000 + 1000);
    expect((await send("PATCH", "/auth/v1/user/email", token, { new_email: "moved@example.jp" })).status).toBe(200);
  });

  it("counts each account on its own", async () => {
    const token = await signedIn();
    await seedUser({ email: "second@example.jp" });
    const other = await accessTokenFor("second@example.jp");
    for (let count = 1; count <= 3; count += 1)
      await send("PATCH", "/auth/v1/user/email", token, { new_email: "a@example.jp" });
    expect((await send("PATCH", "/auth/v1/user/email", other, { new_email: "b@example.jp" })).status).toBe(200);
  });
});

describe("PATCH user/email", () => {
  const newEmail = "moved@example.jp";
  const resultOf = (response: Response) => {
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(`${site}/client/changeEmail`);
    expect(location.searchParams.get("client_id")).toBe(sampleClientIds.client);
    return location.searchParams.get("result");
  };

  it("confirms through the old address, then the new one", async () => {
    const token = await signedIn();
    const requested = await send("PATCH", "/auth/v1/user/email", token, { new_email: newEmail });
    expect(requested.status).toBe(200);
    expect(await outbox(newEmail)).toEqual([]);
    const toOld = await latestMail(email);
    expect(toOld.text).toContain(newEmail);
    expect(toOld.link).toMatch(/^http:\/\/localhost:5173\/auth\/v1\/user\/email\/confirm\?token=/);

    expect(resultOf(await call(toOld.link ?? ""))).toBe("sent_to_new_email");
    expect(resultOf(await call(toOld.link ?? ""))).toBe("invalid");
    const toNew = await latestMail(newEmail);
    expect(toNew.link).not.toBe(toOld.link);
    expect(resultOf(await call(toNew.link ?? ""))).toBe("completed");
    expect(resultOf(await call(toNew.link ?? ""))).toBe("invalid");

    const profile = (await (await call("/auth/v1/user/profile", { headers: bearer(token) })).json()) as {
      email: string;
      email_verified: boolean;
    };
    expect(profile).toMatchObject({ email: newEmail, email_verified: true });
  });

  it("keeps the verified address for login until both links are followed", async () => {
    const token = await signedIn();
    const signsIn = async (address: string) => (await login((await startLogin()).challenge, address)).status === 201;
    const profileEmail = async () =>
      ((await (await call("/auth/v1/user/profile", { headers: bearer(token) })).json()) as { email: string }).email;

    expect((await send("PATCH", "/auth/v1/user/email", token, { new_email: newEmail })).status).toBe(200);
    expect([await signsIn(email), await signsIn(newEmail), await profileEmail()]).toEqual([true, false, email]);
    expect(resultOf(await call(await latestLink(email)))).toBe("sent_to_new_email");
    expect([await signsIn(email), await signsIn(newEmail), await profileEmail()]).toEqual([true, false, email]);
    expect(resultOf(await call(await latestLink(newEmail)))).toBe("completed");
    expect([await signsIn(email), await signsIn(newEmail), await profileEmail()]).toEqual([false, true, newEmail]);
  });

  it("takes the address from an unconfirmed sign-up that holds it, when the change completes", async () => {
    const token = await signedIn();
    await seedUser({ email: newEmail, password: "Squatt3r-Pass", confirmed: false });
    await send("PATCH", "/auth/v1/user/email", token, { new_email: newEmail });
    expect(resultOf(await call((await latestMail(email)).link ?? ""))).toBe("sent_to_new_email");
    expect(resultOf(await call((await latestMail(newEmail)).link ?? ""))).toBe("completed");
    expect((await login((await startLogin()).challenge, newEmail)).status).toBe(201);
  });

  it("answers invalid for an unknown or expired link, error when the address was taken meanwhile", async () => {
    const token = await signedIn();
    expect(resultOf(await call(`/auth/v1/user/email/confirm?token=forged&client_id=${sampleClientIds.client}`))).toBe(
      "invalid",
    );
    await send("PATCH", "/auth/v1/user/email", token, { new_email: newEmail });
    const link = (await latestMail(email)).link ?? "";
    await setClock(24 * 3_600_000 + 1000);
    expect(resultOf(await call(link))).toBe("invalid");
    await setClock(0);

    await send("PATCH", "/auth/v1/user/email", token, { new_email: newEmail });
    const second = (await latestMail(email)).link ?? "";
    await seedUser({ email: newEmail });
    expect(resultOf(await call(second))).toBe("error");
  });

  it("refuses an address another account holds", async () => {
    await seedUser({ email: "other@example.jp" });
    const token = await signedIn();
    await expectProblem(
      await send("PATCH", "/auth/v1/user/email", token, { new_email: "Other@example.jp" }),
      409,
      "already_registered",
    );
    await expectProblem(
      await send("PATCH", "/auth/v1/user/email", token, { new_email: "not-an-address" }),
      400,
      "invalid_request",
    );
  });
});

describe("POST user/email and user/email/confirm", () => {
  it("registers an address with a 6-digit code valid one hour; the current address is allowed", async () => {
    const token = await signedIn({ emailVerified: false });
    expect((await send("POST", "/auth/v1/user/email", token, { email })).status).toBe(201);
    const { code, text } = await latestMail(email);
    expect(code).toMatch(/^\d{6}$/);
    expect(text).toContain("1時間");
    await expectProblem(
      await send("POST", "/auth/v1/user/email/confirm", token, { code: code === "000000" ? "111111" : "000000" }),
      400,
      "invalid_code",
    );
    expect((await send("POST", "/auth/v1/user/email/confirm", token, { code })).status).toBe(201);
    await expectProblem(await send("POST", "/auth/v1/user/email/confirm", token, { code }), 400, "invalid_code");
    const profile = (await (await call("/auth/v1/user/profile", { headers: bearer(token) })).json()) as {
      email_verified: boolean;
    };
    expect(profile.email_verified).toBe(true);
  });

  it("switches to a new address and expires the code after an hour", async () => {
    const token = await signedIn({ emailVerified: false });
    await send("POST", "/auth/v1/user/email", token, { email: "fresh@example.jp" });
    const { code } = await latestMail("fresh@example.jp");
    await setClock(3_600_000 + 1000);
    const late = await accessTokenFor(email);
    await expectProblem(await send("POST", "/auth/v1/user/email/confirm", late, { code }), 400, "expired_code");
    await setClock(0);
    await send("POST", "/auth/v1/user/email", token, { email: "fresh@example.jp" });
    expect(
      (await send("POST", "/auth/v1/user/email/confirm", token, { code: (await latestMail("fresh@example.jp")).code }))
        .status,
    ).toBe(201);
    expect(await (await call("/auth/v1/user/profile", { headers: bearer(token) })).json()).toMatchObject({
      email: "fresh@example.jp",
      email_verified: true,
    });
  });

  it("takes the address from an unconfirmed sign-up that holds it", async () => {
    const token = await signedIn({ emailVerified: false });
    await seedUser({ email: "fresh@example.jp", confirmed: false });
    await send("POST", "/auth/v1/user/email", token, { email: "fresh@example.jp" });
    const { code } = await latestMail("fresh@example.jp");
    expect((await send("POST", "/auth/v1/user/email/confirm", token, { code })).status).toBe(201);
    expect(await (await call("/auth/v1/user/profile", { headers: bearer(token) })).json()).toMatchObject({
      email: "fresh@example.jp",
      email_verified: true,
    });
  });

  it("refuses an address another account holds", async () => {
    await seedUser({ email: "other@example.jp" });
    const token = await signedIn();
    await expectProblem(
      await send("POST", "/auth/v1/user/email", token, { email: "other@example.jp" }),
      409,
      "already_registered",
    );
  });
});

describe("MFA setup", () => {
  it("hands out a TOTP secret and confirms a code with one step of drift", async () => {
    const token = await signedIn();
    const setup = await send("POST", "/auth/v1/user/mfa/setup", token, { type: "totp" });
    expect(setup.status).toBe(201);
    const { secret_code } = (await setup.json()) as { secret_code: string };
    expect(secret_code).toMatch(/^[A-Z2-7]{32}$/);
    const totp = new TOTP({ secret: secret_code });
    await expectProblem(
      await send("POST", "/auth/v1/user/mfa/confirm", token, {
        type: "totp",
        code: totp.generate({ timestamp: Date.now() - 90_000 }),
      }),
      400,
      "invalid_code",
    );
    await expectProblem(
      await send("POST", "/auth/v1/user/mfa/confirm", token, { type: "sms", code: "123456" }),
      404,
      "challenge_not_found",
    );
    const confirmed = await send("POST", "/auth/v1/user/mfa/confirm", token, {
      type: "totp",
      code: totp.generate({ timestamp: Date.now() + 30_000 }),
    });
    expect(confirmed.status).toBe(201);
    expect(await (await call("/auth/v1/user/profile", { headers: bearer(token) })).json()).toMatchObject({
      preferred_mfa_setting: "totp",
    });
    await expectProblem(
      await send("POST", "/auth/v1/user/mfa/confirm", token, { type: "totp", code: totp.generate() }),
      404,
      "challenge_not_found",
    );

    const { challenge } = await startLogin();
    const pending = (await (await login(challenge, email)).json()) as { additional_flow: { next: string } };
    expect(pending.additional_flow.next).toBe("mfa_totp");
  });

  it("texts a code to a +81 number, valid 3 minutes", async () => {
    const token = await signedIn();
    await expectProblem(
      await send("POST", "/auth/v1/user/mfa/setup", token, { type: "sms", phone_number: "09012345678" }),
      400,
      "invalid_request",
    );
    const setup = await send("POST", "/auth/v1/user/mfa/setup", token, { type: "sms", phone_number: phone });
    expect(setup.status).toBe(201);
    expect(await setup.json()).toEqual({});
    const sms = await latestMail(phone);
    expect(sms).toMatchObject({ kind: "sms", code: expect.stringMatching(/^\d{6}$/) });
    await setClock(3 * 60_000 + 1000);
    const late = await accessTokenFor(email);
    await expectProblem(
      await send("POST", "/auth/v1/user/mfa/confirm", late, { type: "sms", code: sms.code }),
      400,
      "expired_code",
    );

    // A new code once the last one has run out (the clock stays late: a code sent within a minute holds).
    await send("POST", "/auth/v1/user/mfa/setup", late, { type: "sms", phone_number: phone });
    const fresh = await latestMail(phone);
    await expectProblem(
      await send("POST", "/auth/v1/user/mfa/confirm", late, {
        type: "sms",
        code: fresh.code === "000000" ? "111111" : "000000",
      }),
      400,
      "invalid_code",
    );
    expect((await send("POST", "/auth/v1/user/mfa/confirm", late, { type: "sms", code: fresh.code })).status).toBe(201);
    expect(await (await call("/auth/v1/user/profile", { headers: bearer(late) })).json()).toMatchObject({
      preferred_mfa_setting: "sms",
    });
  });

  it("refuses an unknown MFA type", async () => {
    const token = await signedIn();
    await expectProblem(
      await send("POST", "/auth/v1/user/mfa/setup", token, { type: "email" }),
      400,
      "invalid_request",
    );
  });
});

describe("calls product §7 names without a contract", () => {
  it("answers 501 not_implemented", async () => {
    await expectProblem(await postJson("/auth/v1/login/sendOtpEmail", {}), 501, "not_implemented");
    await expectProblem(await call("/auth/v1/tenants/client/loginHint/abc"), 501, "not_implemented");
    await expectProblem(await call("/auth/v1/nothing-here"), 404, "not_found");
  });
});
