import { beforeEach, describe, expect, it } from "vitest";
import {
  call,
  latestMail,
  login,
  outbox,
  postJson,
  resetEmulator,
  sampleClientIds,
  seedUser,
  setClock,
  site,
  startLogin,
} from "./emulatorClient";

beforeEach(resetEmulator);

const email = "reset@example.jp";
const newPassword = "Br4nd-New-Pass";

function forgot(body: Record<string, unknown>): Promise<Response> {
  return postJson("/auth/v1/password/forgot", {
    client_id: sampleClientIds.client,
    username: email,
    initiate: false,
    ...body,
  });
}

function confirm(code: string | null, body: Record<string, unknown> = {}): Promise<Response> {
  return postJson("/auth/v1/password/confirm", {
    client_id: sampleClientIds.client,
    username: email,
    new_password: newPassword,
    code,
    ...body,
  });
}

describe("password/forgot", () => {
  it("mails the forgotPassword link of the service, valid 60 minutes", async () => {
    await seedUser({ email });
    const response = await forgot({ extra_hook_params: { source: "test" } });
    expect(response.status).toBe(201);
    const mail = await latestMail(email);
    const link = new URL(mail.link ?? "");
    expect(`${link.origin}${link.pathname}`).toBe(`${site}/client/forgotPassword`);
    expect(Object.fromEntries(link.searchParams)).toEqual({
      client_id: sampleClientIds.client,
      code: mail.code,
      username: email,
    });
    expect(mail.text).toContain("60分");
  });

  it("mails the initiatePassword link when initiate is true", async () => {
    await seedUser({ email, transferInProgress: true });
    await forgot({ client_id: sampleClientIds.lemon, initiate: true });
    const link = new URL((await latestMail(email)).link ?? "");
    expect(link.pathname).toBe("/liqueur-lemon/initiatePassword");
  });

  it("answers 201 for an unknown user without sending anything", async () => {
    expect((await forgot({ username: "ghost@example.jp" })).status).toBe(201);
    expect(await outbox("ghost@example.jp")).toEqual([]);
  });

  it("takes extra_hook_params as a few short strings, whose service_id must be the client's service", async () => {
    await seedUser({ email });
    expect((await forgot({ extra_hook_params: { service_id: "client" } })).status).toBe(201);
    expect(await outbox(email)).toHaveLength(1);
    for (const extra_hook_params of [
      { service_id: "gungnir-aurora" },
      { service_id: 7 },
      { nested: { service_id: "client" } },
      { note: "x".repeat(257) },
      Object.fromEntries(Array.from({ length: 11 }, (_, n) => [`key${n}`, "v"])),
    ]) {
      const refused = await forgot({ extra_hook_params });
      expect(refused.status, JSON.stringify(extra_hook_params).slice(0, 60)).toBe(400);
      expect(await refused.json()).toMatchObject({ type: "invalid_request" });
    }
    expect(await outbox(email)).toHaveLength(1);
  });

  it("refuses an unknown client and a bad body", async () => {
    expect((await forgot({ client_id: "no-such-client" })).status).toBe(400);
    expect(await (await forgot({ initiate: "yes" })).json()).toMatchObject({ type: "invalid_request" });
  });
});

describe("password/confirm", () => {
  it("sets the password once with the mailed code", async () => {
    await seedUser({ email });
    await forgot({});
    const { code } = await latestMail(email);
    const wrong = await confirm(code === "000000" ? "111111" : "000000");
    expect(await wrong.json()).toMatchObject({ type: "invalid_code" });
    expect((await confirm(code, { new_password: "weak" })).status).toBe(400);
    expect((await confirm(code)).status).toBe(201);
    expect(await (await confirm(code)).json()).toMatchObject({ type: "invalid_code" });
    expect((await login((await startLogin()).challenge, email, newPassword)).status).toBe(201);
  });

  it("expires the code after 60 minutes", async () => {
    await seedUser({ email });
    await forgot({});
    const { code } = await latestMail(email);
    await setClock(60 * 60_000 + 1000);
    const response = await confirm(code);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: "expired_code" });
  });

  it("ends a lockout and a pending system transfer", async () => {
    await seedUser({ email, transferInProgress: true });
    await forgot({ client_id: sampleClientIds.lemon, initiate: true });
    const { code } = await latestMail(email);
    expect((await confirm(code, { client_id: sampleClientIds.lemon, new_password: "Lemon1234" })).status).toBe(201);
    const user = (await (await call(`/__emulator/users/${email}`)).json()) as { transferInProgress: boolean };
    expect(user.transferInProgress).toBe(false);
    expect((await login((await startLogin()).challenge, email, "Lemon1234")).status).toBe(201);
  });
});
