import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { modals } from "../../messages/modals";
import { app } from "../../worker/index";
import { screenCases } from "../support/screens";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { emulator, fromOwnAddress, ORIGIN, sealedCookie } from "./helpers";
import { Journey, reachLoginScreen } from "./journey";

// product §8 MAINTENANCE: the operators' switch puts every page into the maintenance modal (503,
// Retry-After, not closable); /health still answers and says so. The upstream's own maintenance looks the same.

const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
const withSwitch = (value: string | undefined) => ({ ...env, MAINTENANCE: value }) as unknown as Env;

function fetchWith(value: string | undefined, path: string, init: RequestInit = {}) {
  return app.fetch(
    fromOwnAddress(new Request(`${ORIGIN}${path}`, { redirect: "manual", ...init })),
    withSwitch(value),
    ctx,
  );
}

async function expectMaintenancePage(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("Retry-After")).toBe(String(modals.maintenance.retryAfterSeconds));
  expect(response.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
  const html = await response.text();
  expect(html).toContain(modals.maintenance.title);
  expect(html).toContain(modals.maintenance.body);
  // Not closable: no close button, no dialog-method form.
  expect(html).not.toContain('method="dialog"');
}

afterEach(() => emulator.clearFaults());

describe("maintenance switched on by operators (MAINTENANCE=on)", () => {
  it.each(screenCases(GUNGNIR).map((screen) => [screen.name, screen] as const))(
    "%s is the maintenance modal",
    async (_name, screen) => {
      const cookies = await Promise.all(
        Object.entries(screen.state).map(([which, value]) => sealedCookie(which as never, value as never)),
      );
      await expectMaintenancePage(await fetchWith("on", screen.path, { headers: { Cookie: cookies.join("; ") } }));
    },
  );

  it("answers a form POST, the entry and unknown paths with it too, and the proxy with its JSON problem", async () => {
    const form = await fetchWith("on", "/signIn", {
      method: "POST",
      headers: { Origin: ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: "username=a%40example.com&password=x",
    });
    await expectMaintenancePage(form);
    await expectMaintenancePage(await fetchWith("On ", `/gungnir-aurora/auth?client_id=${GUNGNIR.clientId}`));
    await expectMaintenancePage(await fetchWith("on", "/no/such/page"));
    const proxied = await fetchWith("on", "/oauth2/token", { method: "POST" });
    expect(proxied.status).toBe(503);
    expect(proxied.headers.get("Retry-After")).toBe("300");
    expect(await proxied.json()).toMatchObject({ type: "maintenance" });
  });

  it("keeps /health answering, and it says so", async () => {
    const health = await fetchWith("on", "/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "maintenance" });
  });

  it("keeps the apps' association files answering: the platforms must not drop the apps' passkeys", async () => {
    for (const path of ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"]) {
      const file = await fetchWith("on", path);
      expect(file.status, path).toBe(200);
      expect(await file.json()).toBeTruthy();
    }
    // Any other discovery path is still the proxy's maintenance answer.
    expect((await fetchWith("on", "/.well-known/openid-configuration")).status).toBe(503);
  });

  it.each([["off"], [undefined], [""], ["yes"]])("serves normally when the switch is %s", async (value) => {
    expect((await fetchWith(value, "/error")).status).toBe(200);
    expect(await (await fetchWith(value, "/health")).json()).toEqual({ status: "ok" });
  });
});

describe("maintenance reported by the upstream", () => {
  it("shows the same modal with 503 and Retry-After, and the typed login ID stays", async () => {
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    await emulator.fault({ pathPattern: "/auth/v1/login", status: 503, body: { type: "maintenance" } });
    const response = await journey.postForm("/signIn", { username: "busy@example.com", password: PASSWORD });
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("300");
    const html = await response.text();
    expect(html).toContain(modals.maintenance.title);
    expect(html).toContain('value="busy@example.com"');
  });
});
