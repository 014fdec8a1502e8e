import { beforeEach, describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import type { View } from "../../worker/session/authRequest";
import { sealedCookies } from "../../worker/session/cookies";
import { type AppBrand, appStart } from "../support/appStart";
import { setCookies } from "../support/cookieJar";
import { PASSWORD } from "../support/emulatorClient";
import { emulator, ORIGIN } from "./helpers";
import { Journey } from "./journey";

// Issue 12: from the app's start to the first screen a browser follows only the redirects OAuth2 needs: the entry to
// the authorization endpoint, and the authorization endpoint to the login screen. The site takes the login
// challenge at the authorization endpoint when the authorization is the browser's own, instead of sending the
// browser through the login URL `/?login_challenge…` for one more hop (docs/security.md, "Redirects").

const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };
const PARTNER = { serviceId: "liqueur-lemon-money-forword", clientId: sampleClientIds.partner };

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
  it.each([
    ["signIn", GUNGNIR, "/signIn"],
    ["extSignIn", GUNGNIR, "/signIn"],
    ["mfaSetUp", GUNGNIR, "/signIn"],
    ["passwordChange", GUNGNIR, "/signIn"],
    ["signUp", GUNGNIR, "/signUp/checkEmail"],
    ["extSignIn", PARTNER, "/signIn"],
  ] as const)("view %s (%s): the entry, the authorization endpoint, then %s", async (view, brand, screen) => {
    const journey = new Journey();
    const { hops, end, endPath } = await navigate(journey, await startPath(brand, view));
    expect(hops.map(({ status, path }) => `${status} ${path}`)).toEqual([
      `302 /${brand.serviceId}/auth`,
      "303 /oauth2/auth",
    ]);
    expect(endPath).toBe(screen);
    expect(end.status).toBe(200);
    // The challenge never is in an address the browser sees.
    for (const { location } of hops) expect(location).not.toContain("login_challenge");
    await end.body?.cancel();
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
    const consent = await navigate(journey, signedIn.headers.get("Location")!);
    expect(consent.endPath).toBe(`/${PARTNER.serviceId}/consent`);
    expect(consent.end.status).toBe(200);
    await consent.end.body?.cancel();
  });
});

describe("the authorization endpoint keeps the login URL for anything but the browser's own authorization", () => {
  /** The app's start in a browser; answers the authorization endpoint's address it was sent to (not yet opened). */
  async function authorizationOf(journey: Journey, brand: AppBrand, view: View): Promise<string> {
    const entry = await journey.request(await startPath(brand, view), { headers: NAVIGATION });
    expect(entry.status).toBe(302);
    return entry.headers.get("Location")!;
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
