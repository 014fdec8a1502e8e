import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

// Runs under emulator/vitest.bundle.config.ts: SELF is test/emulator/bindingProbe.ts, the emulator a bundled auxiliary worker.
const site = "https://id.example.jp";

function viaBinding(path: string, init: RequestInit = {}): Promise<Response> {
  return SELF.fetch(`${site}${path}`, { redirect: "manual", ...init });
}

function postJson(path: string, body: unknown): Promise<Response> {
  return viaBinding(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("the bundled emulator behind an IDENTITY service binding", () => {
  it("answers /auth/health", async () => {
    const response = await viaBinding("/auth/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("keeps state in its SQLite Durable Object and builds URLs at the forwarded origin", async () => {
    await postJson("/__emulator/reset", {});
    expect((await postJson("/__emulator/users", { email: "bundle@example.jp", password: "Passw0rd!" })).status).toBe(
      201,
    );
    const user = await viaBinding("/__emulator/users/bundle%40example.jp");
    expect(await user.json()).toMatchObject({ email: "bundle@example.jp" });
    const discovery = (await (await viaBinding("/.well-known/openid-configuration")).json()) as { issuer: string };
    expect(discovery.issuer).toBe(site);
  });

  it("turns a drop fault into a rejected fetch for the caller", async () => {
    await postJson("/__emulator/faults", { method: "GET", pathPattern: "/auth/health", drop: true });
    await expect(viaBinding("/auth/health")).rejects.toThrow();
    expect((await viaBinding("/auth/health")).status).toBe(200);
  });
});
