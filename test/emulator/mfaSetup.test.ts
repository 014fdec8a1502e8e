import { TOTP } from "otpauth";
import { beforeEach, describe, expect, it } from "vitest";
import { accessTokenFor, bearer, outbox, postJson, resetEmulator, seedUser, setClock } from "./emulatorClient";

// product §4 MFA setup as the upstream must hold it (emulator/README.md "Limits"): one setup request at a time per
// user, 5 wrong codes end a pending setup, SMS sends are spaced and capped.

beforeEach(resetEmulator);

const email = "mfa.setup@example.jp";
const phone = "+8109012345678";
const minute = 60_000;

async function signedIn(): Promise<string> {
  await seedUser({ email });
  return accessTokenFor(email);
}

function call(path: string, token: string, body: unknown): Promise<Response> {
  return postJson(path, body, { headers: bearer(token) });
}

const setup = (token: string, body: { type: "totp" } | { type: "sms"; phone_number: string }) =>
  call("/auth/v1/user/mfa/setup", token, body);
const confirm = (token: string, type: "totp" | "sms", code: string) =>
  call("/auth/v1/user/mfa/confirm", token, { type, code });

async function secretOf(response: Response): Promise<string> {
  expect(response.status).toBe(201);
  return ((await response.json()) as { secret_code: string }).secret_code;
}

async function expectProblem(response: Response, status: number, type: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(await response.json()).toMatchObject({ type });
}

const wrong = (code: string) => (code === "000000" ? "111111" : "000000");

describe("TOTP setup", () => {
  it("answers a repeated request with the pending secret, never a second one; a confirmed setup ends it", async () => {
    const token = await signedIn();
    const first = await secretOf(await setup(token, { type: "totp" }));
    const [again, concurrent] = await Promise.all([setup(token, { type: "totp" }), setup(token, { type: "totp" })]);
    expect(await secretOf(again)).toBe(first);
    expect(await secretOf(concurrent)).toBe(first);
    expect((await confirm(token, "totp", new TOTP({ secret: first }).generate())).status).toBe(201);
    expect(await secretOf(await setup(token, { type: "totp" }))).not.toBe(first);
  });

  it("ends the pending setup after 5 wrong codes: the right code then gets expired_code, a new request a new secret", async () => {
    const token = await signedIn();
    const secret = await secretOf(await setup(token, { type: "totp" }));
    const right = () => new TOTP({ secret }).generate();
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await expectProblem(await confirm(token, "totp", wrong(right())), 400, "invalid_code");
    }
    await expectProblem(await confirm(token, "totp", right()), 400, "expired_code");
    const fresh = await secretOf(await setup(token, { type: "totp" }));
    expect(fresh).not.toBe(secret);
    expect((await confirm(token, "totp", new TOTP({ secret: fresh }).generate())).status).toBe(201);
  });

  it("lets four wrong codes pass before the right one", async () => {
    const token = await signedIn();
    const secret = await secretOf(await setup(token, { type: "totp" }));
    const right = () => new TOTP({ secret }).generate();
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      await expectProblem(await confirm(token, "totp", wrong(right())), 400, "invalid_code");
    }
    expect((await confirm(token, "totp", right())).status).toBe(201);
  });
});

describe("SMS setup", () => {
  it("refuses a second SMS while the first is less than a minute old (409 setup_pending, Retry-After)", async () => {
    const token = await signedIn();
    const [one, two] = await Promise.all([
      setup(token, { type: "sms", phone_number: phone }),
      setup(token, { type: "sms", phone_number: phone }),
    ]);
    expect([one.status, two.status].sort()).toEqual([201, 409]);
    const refused = one.status === 409 ? one : two;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ type: "setup_pending" });
    expect(await outbox(phone)).toHaveLength(1);
    const [sent] = await outbox(phone);

    // A minute on, a new code goes out and replaces the first.
    await setClock(minute + 1000);
    const later = await accessTokenFor(email);
    expect((await setup(later, { type: "sms", phone_number: phone })).status).toBe(201);
    const messages = await outbox(phone);
    expect(messages).toHaveLength(2);
    const fresh = messages[0]!;
    if (fresh.code !== sent!.code) await expectProblem(await confirm(later, "sms", sent!.code!), 400, "invalid_code");
    expect((await confirm(later, "sms", fresh.code!)).status).toBe(201);
  });

  it("ends the pending setup after 5 wrong codes", async () => {
    const token = await signedIn();
    await setup(token, { type: "sms", phone_number: phone });
    const code = (await outbox(phone))[0]?.code ?? "";
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await expectProblem(await confirm(token, "sms", wrong(code)), 400, "invalid_code");
    }
    await expectProblem(await confirm(token, "sms", code), 400, "expired_code");
  });

  it("sends at most 5 setup SMS an hour per account (then 429 too_many_requests and no SMS)", async () => {
    await seedUser({ email });
    for (let sent = 0; sent < 5; sent += 1) {
      await setClock(sent * (minute + 1000));
      expect((await setup(await accessTokenFor(email), { type: "sms", phone_number: phone })).status).toBe(201);
    }
    await setClock(5 * (minute + 1000));
    const refused = await setup(await accessTokenFor(email), { type: "sms", phone_number: phone });
    await expectProblem(refused, 429, "too_many_requests");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await outbox(phone)).toHaveLength(5);
  });

  it("confirms only the type that is pending", async () => {
    const token = await signedIn();
    await setup(token, { type: "sms", phone_number: phone });
    await expectProblem(await confirm(token, "totp", "123456"), 404, "challenge_not_found");
  });
});
