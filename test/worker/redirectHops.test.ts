import { beforeEach, describe, expect, it } from "vitest";
import type { View } from "../../worker/session/authRequest";
import { sealedCookies } from "../../worker/session/cookies";
import { type AppBrand, appStart } from "../support/appStart";
import { setCookies } from "../support/cookieJar";
import { expectNoSecrets } from "../support/expectations";
import { GUNGNIR, PARTNER, PASSWORD } from "../support/vocabulary";
import { emulator, ORIGIN } from "./helpers";
import { authorizationAskedBy, Journey } from "./journey";

// From the app's start to the first screen a browser follows no redirect. The app's start asks the authorization
// endpoint itself, with the browser's OAuth2 session, takes the login challenge of its own authorization and answers
// the sign-in or sign-up screen (docs/security.md, "Redirects"; the README's table of hops). Where the browser itself
// navigates to the authorization endpoint (after an own view's sign-in, the step-up), the proxy takes the challenge
// of the browser's own authorization as before, and anything else gets the upstream's answer as it is.

/** What a browser sends on a top-level navigation (Fetch Metadata, Accept). */
const NAVIGATION = {
  "Sec-Fetch-Mode": "navigate",
  "Sec-Fetch-Dest": "document",
  "Sec-Fetch-Site": "same-origin",
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
};

interface Hop {
  status: number;
  path: string;
  location: string;
}

/** Navigates as a browser does and follows the redirects that stay on the site; answers each redirect and the end. */
async function navigate(journey: Journey, target: string): Promise<{ hops: Hop[]; end: Response; endPath: string }> {
  const hops: Hop[] = [];
  let url = new URL(target, ORIGIN);
  for (;;) {
    const response = await journey.request(url.toString(), { headers: NAVIGATION });
    const location = response.headers.get("Location");
    if (response.status < 300 || response.status >= 400 || location === null) {
      return { hops, end: response, endPath: url.pathname };
    }
    await response.body?.cancel();
    hops.push({ status: response.status, path: url.pathname, location });
    const next = new URL(location, url);
    if (next.origin !== ORIGIN || hops.length > 10) return { hops, end: response, endPath: next.pathname };
    url = next;
  }
}

const startPath = async (brand: AppBrand, view: View) => (await appStart(brand, view)).path;

beforeEach(async () => {
  await emulator.reset();
});

describe("redirects from the app's start to the first screen", () => {
  // Every view of the app's start. The own views (all but extSignIn) come back to the site's /callback, so the site
  // keeps its own state and PKCE verifier for them; extSignIn goes back to the app with the app's own.
  it.each([
    ["signIn", GUNGNIR.serviceId, 'action="/signIn"', GUNGNIR],
    ["extSignIn", GUNGNIR.serviceId, 'action="/signIn"', GUNGNIR],
    ["mfaSetUp", GUNGNIR.serviceId, 'action="/signIn"', GUNGNIR],
    ["passwordChange", GUNGNIR.serviceId, 'action="/signIn"', GUNGNIR],
    ["emailChange", GUNGNIR.serviceId, 'action="/signIn"', GUNGNIR],
    ["passkeys", GUNGNIR.serviceId, 'action="/signIn"', GUNGNIR],
    ["signUp", GUNGNIR.serviceId, 'action="/signUp/checkEmail"', GUNGNIR],
    ["extSignIn", PARTNER.serviceId, 'action="/signIn"', PARTNER],
  ] as const)("view %s (%s): none, the entry answers the screen with %s", async (view, _service, form, brand) => {
    const journey = new Journey();
    const start = await startPath(brand, view);
    const { hops, end, endPath } = await navigate(journey, start);
    expect(hops).toEqual([]);
    expect(endPath).toBe(`/${brand.serviceId}/auth`);
    expect(end.status).toBe(200);
    const html = await end.text();
    expect(html).toContain(form);
    // The challenge, the site's state and its PKCE verifier are never in the page.
    const kept = await journey.sealed(view === "signUp" ? "signUp" : "signIn");
    const authRequest = await journey.sealed("authRequest");
    expect(authRequest?.query.view).toBe(view);
    if (view === "extSignIn") {
      expect(authRequest?.own).toBeUndefined();
      expectNoSecrets(html, [kept?.loginChallenge]);
    } else {
      expectNoSecrets(html, [kept?.loginChallenge, authRequest?.own?.state, authRequest?.own?.codeVerifier]);
    }
    // Its address is the app's own start: referrers stay on the site, where the form's POST must show its origin.
    expect(end.headers.get("Referrer-Policy")).toBe("same-origin");
  });

  it("the OAuth2 server's session, when the app names the signed-in user, skips the form: one redirect, to /callback", async () => {
    await emulator.seed({ email: "remembered@example.com" });
    const journey = new Journey();
    await navigate(journey, await startPath(GUNGNIR, "signIn"));
    const signedIn = await journey.postForm("/signIn", {
      client_id: GUNGNIR.clientId,
      username: "remembered@example.com",
      password: PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    await navigate(journey, signedIn.headers.get("Location")!);
    // The server's session came back through the site under the site's own name for it, for every path.
    expect(journey.has("__Host-oauth2-session")).toBe(true);
    const hashedUserId = (await journey.sealed("tokens"))?.hashedUserName;
    expect(hashedUserId, "the sign-in kept no tokens").toBeTruthy();
    const again = await appStart(GUNGNIR, "signIn", { hashed_user_id: hashedUserId });
    const { hops, end } = await navigate(journey, again.path);
    expect(hops[0]).toMatchObject({ status: 302, path: `/${GUNGNIR.serviceId}/auth` });
    expect(new URL(hops[0]!.location, ORIGIN).pathname).toBe("/callback");
    const toApp = new URL(end.headers.get("Location") ?? "");
    expect(`${toApp.origin}${toApp.pathname}`).toBe(again.appRedirect);
    expect(toApp.searchParams.get("code")).toMatch(/.{16,}/);
  });

  it.each([
    ["another site", "https://evil.example/steal"],
    ["the app's host on another path", "https://app.gungnir-aurora.example/elsewhere"],
  ])("an OAuth2 server that sends the app's start to %s: the product §8 modal, no redirect", async (_, location) => {
    await emulator.fault({ method: "GET", pathPattern: "/oauth2/auth", status: 302, location });
    const { hops, end } = await navigate(new Journey(), await startPath(GUNGNIR, "extSignIn"));
    expect(hops).toEqual([]);
    expect(end.status).toBe(502);
    expect(await end.text()).not.toContain(location);
  });

  it("an OAuth2 server at its own attempt cap (429): the too-many-attempts modal", async () => {
    await emulator.fault({ method: "GET", pathPattern: "/oauth2/auth", status: 429 });
    const { end } = await navigate(new Journey(), await startPath(GUNGNIR, "signIn"));
    expect(end.status).toBe(429);
    expect(await end.text()).toContain("試行回数の上限に達しました");
  });

  it("an OAuth2 server that refuses the authorization (4xx): the parameter problem, not the server's page", async () => {
    await emulator.fault({ method: "GET", pathPattern: "/oauth2/auth", status: 400, body: "<h1>bad request</h1>" });
    const { hops, end } = await navigate(new Journey(), await startPath(GUNGNIR, "signIn"));
    expect(hops).toEqual([]);
    expect(end.status).toBe(400);
    expect(await end.text()).toContain("パラメータに不備がありました");
  });

  it("the challenge taken at the authorization endpoint signs in and hands the app its code", async () => {
    await emulator.seed({ email: "hops@example.com" });
    const journey = new Journey();
    const start = await appStart(GUNGNIR, "extSignIn");
    const { end } = await navigate(journey, start.path);
    await end.body?.cancel();
    const signedIn = await journey.postForm("/signIn", {
      client_id: GUNGNIR.clientId,
      username: "hops@example.com",
      password: PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    const { hops } = await navigate(journey, signedIn.headers.get("Location")!);
    const toApp = new URL(hops.at(-1)!.location);
    expect(`${toApp.origin}${toApp.pathname}`).toBe(start.appRedirect);
    expect(toApp.searchParams.get("code")).toMatch(/.{16,}/);
    expect(toApp.searchParams.get("state")).toBe("app-state-0001");
  });

  it("the partner's consent is taken after a login whose challenge the authorization endpoint took", async () => {
    await emulator.seed({ email: "hops.partner@example.com" });
    const journey = new Journey();
    const { end } = await navigate(journey, await startPath(PARTNER, "extSignIn"));
    await end.body?.cancel();
    const signedIn = await journey.postForm("/signIn", {
      client_id: PARTNER.clientId,
      username: "hops.partner@example.com",
      password: PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    const consent = await navigate(journey, signedIn.headers.get("Location")!);
    // The README's count: the POST's 303, the authorization endpoint's 302 to the consent link, and the link's own
    // 303, which takes the challenge out of the address.
    expect(consent.hops.map(({ status, path }) => `${status} ${path}`)).toEqual([
      "302 /oauth2/auth",
      `303 /${PARTNER.serviceId}/consent`,
    ]);
    expect(consent.endPath).toBe(`/${PARTNER.serviceId}/consent`);
    expect(consent.end.status).toBe(200);
    await consent.end.body?.cancel();
  });
});

describe("the authorization endpoint keeps the login URL for anything but the browser's own authorization", () => {
  /** The app's start in a browser; answers the authorization endpoint's address the site asked for it. */
  async function authorizationOf(journey: Journey, brand: AppBrand, view: View): Promise<string> {
    const asked = await authorizationAskedBy(
      await journey.request(await startPath(brand, view), { headers: NAVIGATION }),
    );
    return `${asked.pathname}${asked.search}`;
  }

  const loginUrlIn = (response: Response) => new URL(response.headers.get("Location") ?? "", ORIGIN);

  it("another browser's authorization opened here goes to the login URL, which refuses it", async () => {
    const attacker = new Journey();
    const planted = await authorizationOf(attacker, GUNGNIR, "signIn");
    const victim = new Journey();
    await authorizationOf(victim, GUNGNIR, "signIn");
    const answer = await victim.request(planted, { headers: NAVIGATION });
    expect(answer.status).toBe(302);
    expect(loginUrlIn(answer).searchParams.has("login_challenge")).toBe(true);
    expect(setCookies(answer).has(`__Host-${sealedCookies.signIn.name}`)).toBe(false);
    const { end } = await navigate(victim, answer.headers.get("Location")!);
    expect(end.status).toBe(400);
    expect(setCookies(end).has(`__Host-${sealedCookies.signIn.name}`)).toBe(false);
  });

  it("a browser without an auth request gets the upstream's login URL as it is", async () => {
    const planted = await authorizationOf(new Journey(), GUNGNIR, "signIn");
    const answer = await new Journey().request(planted, { headers: NAVIGATION });
    expect(answer.status).toBe(302);
    expect(loginUrlIn(answer).pathname).toBe("/");
    expect(loginUrlIn(answer).searchParams.has("login_challenge")).toBe(true);
  });

  it("the browser's own state with a redirect URI it did not ask for goes to the login URL", async () => {
    const journey = new Journey();
    const own = new URL(await authorizationOf(journey, GUNGNIR, "extSignIn"), ORIGIN);
    // Registered for the client too (the native app's scheme), but not what this auth request asked with.
    own.searchParams.set("redirect_uri", "jp.example.aurora://oauth/callback");
    const answer = await journey.request(own.toString(), { headers: NAVIGATION });
    expect(answer.status).toBe(302);
    expect(loginUrlIn(answer).searchParams.has("login_challenge")).toBe(true);
  });

  it("an API client (no navigation) gets the upstream's answer unchanged", async () => {
    const journey = new Journey();
    const own = await authorizationOf(journey, GUNGNIR, "signIn");
    const answer = await journey.request(own, { headers: { Accept: "application/json" } });
    expect(answer.status).toBe(302);
    expect(loginUrlIn(answer).searchParams.has("login_challenge")).toBe(true);
    expect(setCookies(answer).has(`__Host-${sealedCookies.signIn.name}`)).toBe(false);
  });
});
