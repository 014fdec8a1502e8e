import { beforeEach, describe, expect, it } from "vitest";
import {
  follow,
  latestMail,
  login,
  outbox,
  postJson,
  register,
  registered,
  resetEmulator,
  seedUser,
  setClock,
  startLogin,
} from "./emulatorClient";

beforeEach(resetEmulator);

const email = "new@example.jp";

function confirm(challenge: string, username: string, code: string | null): Promise<Response> {
  return postJson("/auth/v1/register/confirm", { login_challenge: challenge, username, code, remember: false });
}

describe("register/checkEmail", () => {
  it("answers registered for confirmed accounts only", async () => {
    await seedUser({ email: "taken@example.jp" });
    const { challenge } = await startLogin({ view: "signUp" });
    const check = async (address: string) =>
      (await postJson("/auth/v1/register/checkEmail", { login_challenge: challenge, email: address })).json();
    expect(await check("TAKEN@example.jp")).toEqual({ registered: true });
    expect(await check(email)).toEqual({ registered: false });
    await registered(challenge, email);
    expect(await check(email)).toEqual({ registered: false });
    const bad = await postJson("/auth/v1/register/checkEmail", { login_challenge: challenge, email: "nope" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: "invalid_request" });
  });
});

describe("register", () => {
  it("creates an unconfirmed user and mails a 6-digit code valid 24 hours", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    const username = await registered(challenge, email);
    expect(username).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const mail = await latestMail(email);
    expect(mail).toMatchObject({ kind: "email", code: expect.stringMatching(/^\d{6}$/), link: null });
    expect(mail.text).toContain(mail.code ?? "");
    expect(mail.text).toContain("24時間");
    await expect(login((await startLogin()).challenge, email).then((r) => r.status)).resolves.toBe(401);
  });

  it("refuses an existing account, a weak password and a dead challenge", async () => {
    await seedUser({ email: "taken@example.jp" });
    const { challenge } = await startLogin({ view: "signUp" });
    const taken = await register(challenge, "Taken@example.jp");
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ type: "already_registered" });
    for (const weak of ["Sh0rt!", "alllowercase1!", "ALLUPPER1!", "NoDigits!!", "NoSymbol123", "Bad Space1!"]) {
      const response = await register(challenge, email, weak);
      expect(response.status, weak).toBe(400);
      expect(await response.json()).toMatchObject({ type: "invalid_request" });
    }
    expect(await outbox(email)).toEqual([]);
    expect((await register("unknown-challenge", email)).status).toBe(404);
  });

  it("lets an unconfirmed sign-up start over with the same username", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    const first = await registered(challenge, email);
    const second = await registered(challenge, email);
    expect(second).toBe(first);
    expect(await outbox(email)).toHaveLength(2);
  });

  it("does not let a second sign-up for an unconfirmed address replace its password", async () => {
    const mine = await startLogin({ view: "signUp" });
    const username = await registered(mine.challenge, email);
    // someone else signs up with the same address and a password of their own
    const theirs = await startLogin({ view: "signUp" });
    expect((await register(theirs.challenge, email, "Th3ir-Passw0rd")).status).toBe(201);
    // the holder of the mailbox confirms the newly mailed code on their own sign-up
    const { code } = await latestMail(email);
    expect((await confirm(mine.challenge, username, code)).status).toBe(201);
    expect((await login((await startLogin()).challenge, email, "Th3ir-Passw0rd")).status).toBe(401);
    expect((await login((await startLogin()).challenge, email)).status).toBe(201);
  });

  it("sets the second sign-up's password once its code is confirmed through that sign-up", async () => {
    const first = await startLogin({ view: "signUp" });
    const username = await registered(first.challenge, email);
    const again = await startLogin({ view: "signUp" });
    expect((await register(again.challenge, email, "An0ther-Passw0rd")).status).toBe(201);
    expect((await confirm(again.challenge, username, (await latestMail(email)).code)).status).toBe(201);
    expect((await login((await startLogin()).challenge, email)).status).toBe(401);
    expect((await login((await startLogin()).challenge, email, "An0ther-Passw0rd")).status).toBe(201);
  });
});

describe("register/confirm", () => {
  it("confirms the user and signs them in for that challenge", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    const username = await registered(challenge, email);
    const { code } = await latestMail(email);
    const wrong = await confirm(challenge, username, code === "000000" ? "111111" : "000000");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ type: "invalid_code" });
    const accepted = await confirm(challenge, username, code);
    expect(accepted.status).toBe(201);
    const { redirect_to } = (await accepted.json()) as { redirect_to: string };
    const { location } = await follow(redirect_to);
    expect(location.searchParams.get("code")).toBeTruthy();
    expect((await confirm(challenge, username, code)).status).toBe(404);
    expect((await login((await startLogin()).challenge, email)).status).toBe(201);
    const check = await postJson("/auth/v1/register/checkEmail", { email });
    expect(await check.json()).toEqual({ registered: true });
  });

  it("expires the code after 24 hours", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    const username = await registered(challenge, email);
    const { code } = await latestMail(email);
    await setClock(24 * 3_600_000 + 1000);
    const fresh = await startLogin({ view: "signUp" });
    const response = await confirm(fresh.challenge, username, code);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: "expired_code" });
  });

  it("answers invalid_code for an unknown username", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    expect(await (await confirm(challenge, "nobody", "123456")).json()).toMatchObject({ type: "invalid_code" });
  });
});

describe("register/confirm/resend", () => {
  it("mails a fresh code and retires the earlier one", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    const username = await registered(challenge, email);
    const { code: earlier } = await latestMail(email);
    const resent = await postJson("/auth/v1/register/confirm/resend", { login_challenge: challenge, username });
    expect(resent.status).toBe(201);
    const { code: later } = await latestMail(email);
    expect(await outbox(email)).toHaveLength(2);
    if (earlier !== later) expect((await confirm(challenge, username, earlier)).status).toBe(400);
    expect((await confirm(challenge, username, later)).status).toBe(201);
  });

  it("answers 201 without mail for an unknown username, 404 for a dead challenge", async () => {
    const { challenge } = await startLogin({ view: "signUp" });
    expect(
      (await postJson("/auth/v1/register/confirm/resend", { login_challenge: challenge, username: "nobody" })).status,
    ).toBe(201);
    expect(
      (await postJson("/auth/v1/register/confirm/resend", { login_challenge: "dead", username: "nobody" })).status,
    ).toBe(404);
  });
});
