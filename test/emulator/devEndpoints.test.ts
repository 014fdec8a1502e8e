import { beforeEach, describe, expect, it } from "vitest";
import { TOTP_SECRET } from "../support/vocabulary";
import { call, latestMail, outbox, postJson, resetEmulator, seedUser, setClock } from "./emulatorClient";

beforeEach(resetEmulator);

function forgot(email: string): Promise<Response> {
  return postJson("/auth/v1/password/forgot", {
    client_id: "dhumuqc8afmvbqhdsrlaji98w9",
    username: email,
    initiate: false,
  });
}

describe("outbox", () => {
  it("lists mail for one address, newest first, with code and link", async () => {
    await seedUser({ email: "hanako@example.jp" });
    await seedUser({ email: "taro@example.jp" });
    await forgot("hanako@example.jp");
    await forgot("taro@example.jp");
    await forgot("Hanako@Example.jp");
    const items = await outbox("HANAKO@example.jp");
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({
      to: "hanako@example.jp",
      kind: "email",
      subject: expect.stringContaining("パスワード"),
    });
    expect(items[0]?.code).toMatch(/^\d{6}$/);
    expect(items[0]?.link).toContain(`code=${items[0]?.code}`);
    expect(Date.parse(items[0]?.sentAt ?? "")).toBeGreaterThanOrEqual(Date.parse(items[1]?.sentAt ?? ""));
    expect(items[0]?.code).not.toBe(items[1]?.code);
    const all = (await (await call("/__emulator/outbox")).json()) as unknown[];
    expect(all).toHaveLength(3);
  });

  it("serves an escaped Japanese HTML view to a browser", async () => {
    await seedUser({ email: "o'brien+jp@example.jp" });
    await forgot("o'brien+jp@example.jp");
    for (const response of [
      await call("/__emulator/outbox", { headers: { accept: "text/html,application/xhtml+xml" } }),
      await call(`/__emulator/outbox.html?to=${encodeURIComponent('"><script>alert(1)</script>')}`),
    ]) {
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("text/html");
      const html = await response.text();
      expect(html).toContain('<html lang="ja">');
      expect(html).toContain("送信済みメール");
      expect(html).not.toContain("<script>");
    }
    const html = await (await call("/__emulator/outbox.html")).text();
    expect(html).toContain("o&#39;brien+jp@example.jp");
    expect(html).toContain("パスワード再設定のご案内");
  });
});

describe("seeded users", () => {
  it("creates, reads and refuses a duplicate", async () => {
    const username = await seedUser({
      email: "seed@example.jp",
      mfa: { totp: TOTP_SECRET },
      forceChangePassword: true,
    });
    expect(username).toMatch(/^[0-9a-f-]{36}$/);
    const read = await call("/__emulator/users/seed%40example.jp");
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      username,
      email: "seed@example.jp",
      emailVerified: true,
      confirmed: true,
      mfa: { totp: TOTP_SECRET },
      forceChangePassword: true,
      transferInProgress: false,
      lockedUntil: null,
    });
    const again = await postJson("/__emulator/users", { email: "SEED@example.jp", password: "x" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ type: "already_registered" });
  });

  it("validates the seed body and answers 404 for an unknown user", async () => {
    const bad = await postJson("/__emulator/users", { email: "not-an-email", password: "x" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: "invalid_request" });
    expect((await call("/__emulator/users/nobody%40example.jp")).status).toBe(404);
  });
});

describe("reset", () => {
  it("clears users, mail, faults and the clock", async () => {
    await seedUser({ email: "gone@example.jp" });
    await forgot("gone@example.jp");
    await postJson("/__emulator/faults", { method: "GET", pathPattern: "/auth/health", times: 5, status: 503 });
    await setClock(3_600_000);
    await resetEmulator();
    expect((await call("/__emulator/users/gone%40example.jp")).status).toBe(404);
    expect(await outbox("gone@example.jp")).toEqual([]);
    expect((await call("/auth/health")).status).toBe(200);
    expect(await (await call("/__emulator/clock")).json()).toMatchObject({ offsetMs: 0 });
  });
});

describe("faults", () => {
  it("answers a status and body for the next N matching calls only", async () => {
    const added = await postJson("/__emulator/faults", {
      method: "POST",
      pathPattern: "/auth/v1/**",
      times: 2,
      status: 503,
      body: { type: "maintenance" },
    });
    expect(added.status).toBe(201);
    expect((await call("/auth/health")).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await forgot("x@example.jp");
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ type: "maintenance" });
    }
    expect((await forgot("x@example.jp")).status).toBe(201);
  });

  it("matches by method, glob across segments and regex", async () => {
    await postJson("/__emulator/faults", { method: "GET", pathPattern: "/auth/**", status: 500 });
    expect((await forgot("x@example.jp")).status).toBe(201);
    expect((await call("/auth/health")).status).toBe(500);
    await postJson("/__emulator/faults", { pathPattern: "^/auth/v1/password/(forgot|confirm)$", status: 429 });
    expect((await forgot("x@example.jp")).status).toBe(429);
    const bad = await postJson("/__emulator/faults", { pathPattern: "^(/", status: 500 });
    expect(bad.status).toBe(400);
  });

  it("matches only the calls whose body includes bodyIncludes, so that tests sharing an emulator keep to their own", async () => {
    await postJson("/__emulator/faults", {
      pathPattern: "/auth/v1/password/forgot",
      bodyIncludes: "mine@",
      status: 500,
    });
    expect((await forgot("theirs@example.jp")).status).toBe(201);
    expect((await forgot("mine@example.jp")).status).toBe(500);
    expect((await forgot("mine@example.jp")).status).toBe(201);
  });

  it("sends a malformed body", async () => {
    await postJson("/__emulator/faults", { method: "GET", pathPattern: "/auth/health", malformed: true });
    const response = await call("/auth/health");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    await expect(response.json()).rejects.toThrow();
  });

  it("delays a call and then answers it normally", async () => {
    await postJson("/__emulator/faults", { method: "GET", pathPattern: "/auth/health", delayMs: 300 });
    const started = performance.now();
    const response = await call("/auth/health");
    const waited = performance.now() - started;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    // workerd's timers only advance with I/O, so a lower bound is all a test can hold it to.
    expect(waited).toBeGreaterThanOrEqual(250);
  });

  it("holds a call until the test releases it, then answers it normally", async () => {
    await postJson("/__emulator/faults", { method: "GET", pathPattern: "/auth/health", held: true });
    const held = call("/auth/health");
    // The call has taken its fault (the list is empty) and waits: the release lets exactly that one go on.
    await expect.poll(async () => ((await (await call("/__emulator/faults")).json()) as unknown[]).length).toBe(0);
    const release = await postJson("/__emulator/faults/release", {});
    expect(await release.json()).toEqual({ released: 1 });
    const response = await held;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    expect(await (await postJson("/__emulator/faults/release", {})).json()).toEqual({ released: 0 });
  });

  it("drops the connection: the caller sees a network error", async () => {
    await postJson("/__emulator/faults", { method: "GET", pathPattern: "/auth/health", drop: true });
    await expect(call("/auth/health")).rejects.toThrow();
    expect((await call("/auth/health")).status).toBe(200);
  });

  it("lists and clears faults, and never touches the controls themselves", async () => {
    await postJson("/__emulator/faults", { pathPattern: "**", times: 100, status: 500 });
    const list = (await (await call("/__emulator/faults")).json()) as { remaining: number }[];
    expect(list).toMatchObject([{ pathPattern: "**", remaining: 100, status: 500 }]);
    expect((await call("/auth/health")).status).toBe(500);
    const cleared = await call("/__emulator/faults", { method: "DELETE" });
    expect(cleared.status).toBe(200);
    expect((await call("/auth/health")).status).toBe(200);
  });
});

describe("clock", () => {
  it("moves the emulator clock by the given offset", async () => {
    const response = await postJson("/__emulator/clock", { offsetMs: 86_400_000 });
    const body = (await response.json()) as { offsetMs: number; now: string };
    expect(body.offsetMs).toBe(86_400_000);
    expect(Date.parse(body.now) - Date.now()).toBeGreaterThan(86_300_000);
    await seedUser({ email: "clock@example.jp" });
    await forgot("clock@example.jp");
    const mail = await latestMail("clock@example.jp");
    expect(Date.parse(mail.sentAt) - Date.now()).toBeGreaterThan(86_300_000);
    expect((await postJson("/__emulator/clock", { offsetMs: "soon" })).status).toBe(400);
  });
});
