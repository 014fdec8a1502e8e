import { describe, expect, it } from "vitest";
import { appStart } from "../support/appStart";
import { valuePattern } from "../support/securityBaseline";
import { GUNGNIR } from "../support/vocabulary";
import { get, ORIGIN, postForm, sealedCookie, siteFetch } from "./helpers";
import { Journey, loginUrlOf, reachLoginScreen } from "./journey";
import { BASELINE, expectBaseline } from "./securityBaseline";

// The security headers of real responses against the baseline docs/security.md writes out ("Headers and forms"),
// value by value (./securityBaseline.ts reads the doc's table): pages, errors, redirects, the proxy. Not against the
// code's own list, which would prove only that the list equals itself.

function nonceOf(response: Response): string {
  const csp = response.headers.get("Content-Security-Policy") ?? "";
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce, csp).toBeTruthy();
  return nonce!;
}

describe("the baseline as docs/security.md writes it", () => {
  it("is a table of the headers, with a value for each but the absent ones", () => {
    const names = BASELINE.map(({ header }) => header);
    expect(names).toEqual(expect.arrayContaining(["Content-Security-Policy", "Strict-Transport-Security"]));
    expect(new Set(names).size).toBe(names.length);
    expect(BASELINE.find(({ header }) => header === "Referrer-Policy")?.values).toEqual(["same-origin", "no-referrer"]);
  });

  it("reads a value exactly, its placeholders as their patterns (the check itself)", () => {
    const csp = valuePattern("script-src 'nonce-{nonce}'; form-action 'self'{app}");
    expect(csp.test("script-src 'nonce-ABCDEFGHIJKLMNOPQRSTUVWX'; form-action 'self'")).toBe(true);
    expect(csp.test("script-src 'nonce-ABCDEFGHIJKLMNOPQRSTUVWX'; form-action 'self' https://app.example")).toBe(true);
    expect(csp.test("script-src 'nonce-ABCDEFGHIJKLMNOPQRSTUVWX'; form-action 'self' *")).toBe(false);
    expect(csp.test("script-src 'nonce-short'; form-action 'self'")).toBe(false);
    expect(valuePattern("nosniff").test("nosniff, x")).toBe(false);
  });
});

describe("security baseline on every response (architecture §8)", () => {
  it.each([
    ["a page", "/error", 200, "same-origin"],
    ["a page with islands", "/signIn", 400, "same-origin"],
    ["a parameter error", "/resetPassword", 400, "same-origin"],
    ["the not-found page", "/no/such/page", 404, "same-origin"],
    ["an unknown brand", "/no-such-brand/consent?client_id=x&scope=a&consent_challenge=b", 404, "no-referrer"],
  ])("%s (%s)", async (_name, path, status, referrerPolicy) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    expectBaseline(response, referrerPolicy);
  });

  it("on a redirect", async () => {
    const response = await get("/logout");
    expect(response.status).toBe(303);
    expectBaseline(response);
  });

  it("on an oversized form (413) and a JSON body on a page (415)", async () => {
    const oversized = await postForm("/signIn", { username: "x".repeat(40_000), password: "y" });
    expect(oversized.status).toBe(413);
    expectBaseline(oversized);
    await oversized.body?.cancel();
    const json = await siteFetch(`${ORIGIN}/signIn`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: ORIGIN },
      body: "{}",
    });
    expect(json.status).toBe(415);
    expectBaseline(json);
    await json.body?.cancel();
  });

  it("on the app's start, whose form may end at the app: form-action names the app's registered origin", async () => {
    const start = await appStart(GUNGNIR, "extSignIn");
    const response = await get(start.path);
    expect(response.status).toBe(200);
    expectBaseline(response);
    expect(response.headers.get("Content-Security-Policy")).toMatch(
      new RegExp(`form-action 'self' ${new URL(start.appRedirect).origin.replaceAll(".", "\\.")}$`),
    );
    await response.body?.cancel();
  });

  it("on a refused cross-site POST (hono/csrf)", async () => {
    const response = await postForm("/signIn", { username: "a", password: "b" }, [], "https://evil.example");
    expect(response.status).toBe(403);
    expectBaseline(response);
    expect(await response.text()).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it("gives every request a fresh nonce, used by every script and style tag", async () => {
    const cookie = await sealedCookie("signIn", { loginChallenge: "challenge" });
    const first = await get("/signIn", [cookie]);
    const second = await get("/signIn", [cookie]);
    const nonce = nonceOf(first);
    expect(nonce).not.toBe(nonceOf(second));
    const html = await first.text();
    const tags = html.match(/<(script|style|link rel="modulepreload")\b[^>]*>/g) ?? [];
    expect(tags.length).toBeGreaterThan(1);
    for (const tag of tags) expect(tag).toContain(`nonce="${nonce}"`);
    await second.body?.cancel();
  });
});

// product §4: the session guard needs to see that a page was reached from this site; no other site ever gets a
// referrer, and a page whose address holds a secret sends none, not even to this site.
describe("Referrer-Policy", () => {
  const gungnir = `client_id=${GUNGNIR.clientId}`;

  const resetLink = {
    page: "forgotPassword",
    clientId: GUNGNIR.clientId,
    code: "123456",
    username: "u-1",
  } as const;
  it.each([
    ["a journey screen", "/signIn", [["signIn", { loginChallenge: "challenge" }]], 200],
    ["a screen without state", `/resetPassword?${gungnir}`, [], 200],
    // docs/browsers.md: its form's POST must carry the site's origin, also where Sec-Fetch-Site is not sent.
    ["the page a reset link leads to", `/gungnir-aurora/forgotPassword?${gungnir}`, [["resetLink", resetLink]], 200],
    [
      "a reset link (code, username): a redirect",
      `/gungnir-aurora/forgotPassword?${gungnir}&code=1&username=u`,
      [],
      303,
    ],
    ["an initiation link: a redirect", `/gungnir-aurora/initiatePassword?${gungnir}&code=1&username=u`, [], 303],
    ["a static asset's 404 through the worker", "/assets/none.js", [], 404],
    ["the proxy", "/auth/health", [], 200],
  ] as const)("is same-origin on %s (%s)", async (_name, path, states, status) => {
    const cookies = await Promise.all(states.map(([which, value]) => sealedCookie(which, value)));
    const response = await get(path, cookies);
    expect(response.status).toBe(status);
    expectBaseline(response, "same-origin");
    await response.body?.cancel();
  });

  it.each([
    [
      "a reset link that failed (code, username)",
      "/gungnir-aurora/forgotPassword",
      "client_id=x&code=1&username=u",
      400,
    ],
    ["a callback that failed (code, state)", "/callback", "code=abcdefghijklmnop&state=x", 400],
    ["a login URL that failed (login_challenge)", "/", `login_challenge=abc&${gungnir}&view=signIn`, 400],
  ])("is no-referrer on %s", async (_name, path, query, status) => {
    const response = await get(`${path}?${query}`);
    expect(response.status).toBe(status);
    expectBaseline(response, "no-referrer");
    await response.body?.cancel();
  });

  it("stays same-origin on a redirect whose address holds secrets: the next page must still see where the user came from", async () => {
    const journey = new Journey();
    const { challenge } = await reachLoginScreen(journey, GUNGNIR, "signIn");
    const loginUrl = await loginUrlOf(journey, challenge);
    const response = await journey.request(loginUrl.toString());
    expect(response.status).toBe(303);
    expectBaseline(response, "same-origin");
  });

  it("stays same-origin on the app's start, whose address holds the app's state: the screen it answers posts its origin", async () => {
    const start = await appStart(GUNGNIR, "signIn");
    expect(start.path).toMatch(/state=.*code_challenge=/);
    const response = await get(start.path);
    expect(response.status).toBe(200);
    expectBaseline(response, "same-origin");
  });
});

describe("errors never leak", () => {
  it("answers an oversized form with a page, not a stack trace", async () => {
    const response = await postForm("/signIn", { username: "x".repeat(40_000), password: "y" });
    expect(response.status).toBe(413);
    const html = await response.text();
    expect(html).toContain("エラーが発生しました");
    expect(html).not.toMatch(/Error:|at \S+ \(/);
  });

  it("serves no stack trace for a malformed cookie", async () => {
    const response = await get("/signIn", ["__Host-sign-in=%%%not-a-token"]);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("パラメータに不備がありました");
  });
});
