import { beforeEach, describe, expect, it } from "vitest";
import type { AppAuthQuery, View } from "../../worker/session/authRequest";
import { sealedCookies } from "../../worker/session/cookies";
import { appStart as startQuery } from "../support/appStart";
import { setCookies } from "../support/cookieJar";
import { ASTRA, GUNGNIR, PARTNER, PASSWORD } from "../support/vocabulary";
import { emulator, get, ORIGIN, sealedCookie } from "./helpers";
import { authorizationAskedBy, Journey } from "./journey";

const brands = {
  gungnir: GUNGNIR,
  partner: PARTNER,
  totpOnly: ASTRA,
};
type BrandKey = keyof typeof brands;

const appStart = (brand: BrandKey, view: View, extra: Partial<AppAuthQuery> = {}) =>
  startQuery(brands[brand], view, extra);

const seed = (email: string, extra: Record<string, unknown> = {}) => emulator.seed({ email, ...extra });

/** The app opens the site, which asks the OAuth2 server and answers the sign-in screen itself. */
async function reachSignIn(journey: Journey, startPath: string): Promise<void> {
  const signInScreen = await journey.request(startPath);
  expect(signInScreen.status).toBe(200);
  await signInScreen.body?.cancel();
}

/** A step of the site's sign-in screens; answers where the OAuth2 server's redirect_to sends the browser. */
async function signInStep(journey: Journey, path: string, form: Record<string, string>): Promise<URL> {
  const step = await journey.postForm(path, form);
  expect(step.status).toBe(303);
  const toCallback = await journey.request(step.headers.get("Location")!);
  expect(toCallback.status).toBe(302);
  return new URL(toCallback.headers.get("Location")!);
}

/** The app opens the site; the user signs in on the site's screen; the browser comes back to /callback. */
async function signIn(journey: Journey, startPath: string, email: string) {
  await reachSignIn(journey, startPath);
  const callback = await signInStep(journey, "/signIn", { username: email, password: PASSWORD });
  expect(`${callback.origin}${callback.pathname}`).toBe(`${ORIGIN}/callback`);
  return journey.request(callback.toString());
}

/** Follows the redirects by hand up to the OAuth2 server's consent link; answers that link, not yet opened. */
async function consentLink(journey: Journey, from: Response): Promise<string> {
  let step = from;
  while (step.status >= 300 && step.status < 400) {
    const location = step.headers.get("Location")!;
    if (new URL(location, ORIGIN).searchParams.has("consent_challenge")) return location;
    step = await journey.request(location);
  }
  throw new Error(`no consent link; the journey stopped at ${step.status}`);
}

beforeEach(async () => {
  await emulator.reset();
});

describe("authorization start (product §2 entry, architecture §4)", () => {
  it("own views: the site's PKCE and state, /callback, scope user.write, prompt=login without a known user", async () => {
    const start = await appStart("gungnir", "signIn");
    const response = await get(start.path);
    expect(response.status).toBe(200);
    const cookie = setCookies(response).get(`__Host-${sealedCookies.authRequest.name}`)!;
    expect(cookie).toMatch(/HttpOnly; Secure; SameSite=Lax/);
    const location = await authorizationAskedBy(response);
    expect(location.pathname).toBe("/oauth2/auth");
    const q = location.searchParams;
    expect(q.get("client_id")).toBe(brands.gungnir.clientId);
    expect(q.get("redirect_uri")).toBe(`${ORIGIN}/callback`);
    expect(q.get("scope")).toBe("user.write");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("code_challenge")).not.toBe(new URLSearchParams(start.path.split("?")[1]).get("code_challenge"));
    expect(q.get("state")).not.toBe("app-state-0001");
    expect(q.get("prompt")).toBe("login");
    expect(q.get("view")).toBe("signIn");
  });

  it("extSignIn: the app's client, state, scope and PKCE, back to the app", async () => {
    const start = await appStart("gungnir", "extSignIn");
    const q = (await authorizationAskedBy(await get(start.path))).searchParams;
    const app = new URLSearchParams(start.path.split("?")[1]);
    expect(q.get("redirect_uri")).toBe(start.appRedirect);
    expect(q.get("state")).toBe("app-state-0001");
    expect(q.get("scope")).toBe("openid");
    expect(q.get("code_challenge")).toBe(app.get("code_challenge"));
    expect(q.get("view")).toBe("extSignIn");
  });

  it("the partner service requests no scope for its own views", async () => {
    const start = await appStart("partner", "signIn");
    expect((await authorizationAskedBy(await get(start.path))).searchParams.get("scope")).toBe("");
  });

  it("keeps the app's prompt when hashed_user_id names the signed-in user, forces login otherwise", async () => {
    const tokens = await sealedCookie("tokens", {
      clientId: GUNGNIR.clientId,
      accessToken: "x",
      expiresAt: 4_000_000_000,
      scope: "user.write",
      tokenType: "bearer",
      hashedUserName: "a".repeat(64),
    });
    const same = await appStart("gungnir", "signIn", { hashed_user_id: "a".repeat(64) });
    expect((await authorizationAskedBy(await get(same.path, [tokens]))).searchParams.get("prompt")).toBeNull();
    const other = await appStart("gungnir", "signIn", { hashed_user_id: "b".repeat(64) });
    expect((await authorizationAskedBy(await get(other.path, [tokens]))).searchParams.get("prompt")).toBe("login");
  });

  it("passes the app's acr_values and max_age to the OAuth2 server, for the app's and the site's own views", async () => {
    // OIDC Core §3.1.2.1; docs/passkeys.md "Step-up": an app asks for a fresh phishing-resistant login.
    for (const view of ["extSignIn", "signIn"] as const) {
      const start = await appStart("gungnir", view, { acr_values: "phr", max_age: "0" });
      const q = (await authorizationAskedBy(await get(start.path))).searchParams;
      expect(q.get("acr_values"), view).toBe("phr");
      expect(q.get("max_age"), view).toBe("0");
      const plain = await appStart("gungnir", view);
      const without = (await authorizationAskedBy(await get(plain.path))).searchParams;
      expect([without.has("acr_values"), without.has("max_age")], view).toEqual([false, false]);
    }
    const several = await appStart("gungnir", "signIn", { acr_values: "phrh phr", max_age: "300" });
    const q = (await authorizationAskedBy(await get(several.path))).searchParams;
    expect([q.get("acr_values"), q.get("max_age")]).toEqual(["phrh phr", "300"]);
  });

  it("refuses an acr_values or max_age that is not one, storing nothing", async () => {
    for (const extra of [
      { max_age: "-1" },
      { max_age: "1e3" },
      { max_age: "" },
      { max_age: "1234567890" },
      { acr_values: "" },
      { acr_values: "phr  phrh" },
      { acr_values: " phr" },
      { acr_values: "p\u00e9r" },
      { acr_values: "a".repeat(257) },
    ]) {
      const start = await appStart("gungnir", "signIn", extra);
      const response = await get(start.path);
      expect(response.status, JSON.stringify(extra)).toBe(400);
      expect(response.headers.getSetCookie().some((line) => line.includes(sealedCookies.authRequest.name))).toBe(false);
    }
  });

  it("accepts the same app query at / and refuses a client of another brand", async () => {
    const start = await appStart("gungnir", "signIn");
    expect((await get(`/?${start.path.split("?")[1]}`)).status).toBe(200);
    const foreign = await appStart("gungnir", "signIn");
    expect((await get(foreign.path.replace("gungnir-aurora", "nosh-homura"))).status).toBe(400);
  });
});

describe("registered redirect targets (architecture §8)", () => {
  const authRequestCookie = `__Host-${sealedCookies.authRequest.name}`;

  it.each([
    ["another site", { app_url: "https://evil.example", callback_path: "/oauth/callback" }],
    ["an intent:// URL", { app_url: "intent://evil.example", callback_path: "/#Intent;scheme=evil;end" }],
    ["a path the app did not register", { callback_path: "/other/callback" }],
    ["another client's app", { app_url: "https://app.nosh-homura.example" }],
    ["the app's host over http", { app_url: "http://app.gungnir-aurora.example" }],
    ["a plain PKCE challenge", { code_challenge_method: "plain" }],
  ])("refuses %s at the entry: 400, the parameter modal, nothing stored", async (_, extra) => {
    const start = await appStart("gungnir", "signIn", extra as Partial<AppAuthQuery>);
    for (const path of [start.path, `/?${start.path.split("?")[1]}`]) {
      const response = await get(path);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("パラメータに不備がありました");
      expect(setCookies(response).has(authRequestCookie)).toBe(false);
    }
  });

  it("sends the browser only to the registered value: the app's own scheme for skip, and it alone in form-action", async () => {
    await seed("scheme@example.com");
    const journey = new Journey();
    const start = await appStart("gungnir", "mfaSetUp", {
      app_url: "jp.example.aurora://oauth",
      callback_path: "/callback",
    });
    // The sign-in screen the app's start answers: its form may end at the app, and at no app of an earlier start.
    const earlier = await appStart("gungnir", "signIn");
    await journey.request(earlier.path);
    const first = await journey.request(start.path);
    expect(first.headers.get("Content-Security-Policy")).toMatch(/form-action 'self' jp\.example\.aurora:(;|$)/);
    await first.body?.cancel();
    const callback = await signIn(journey, start.path, "scheme@example.com");
    expect(callback.headers.get("Location")).toBe("/mfa/setup");
    const setup = await journey.request("/mfa/setup");
    expect(setup.headers.get("Content-Security-Policy")).toMatch(/form-action 'self' jp\.example\.aurora:(;|$)/);
    const skipped = await journey.postForm("/mfa/setup/skip", {});
    expect(skipped.status).toBe(303);
    expect(skipped.headers.get("Location")).toBe("jp.example.aurora://oauth/callback");
  });
});

describe("callback and after sign-in (product §2)", () => {
  it("a verified user without a second factor: tokens stored, then the app gets its code", async () => {
    await seed("plain@example.com");
    const journey = new Journey();
    const start = await appStart("gungnir", "signIn");
    const callback = await signIn(journey, start.path, "plain@example.com");
    expect(callback.status).toBe(302);
    expect(journey.has(`__Host-${sealedCookies.tokens.name}`)).toBe(true);
    const { foreign } = await journey.follow(callback);
    expect(`${foreign!.origin}${foreign!.pathname}`).toBe(start.appRedirect);
    expect(foreign!.searchParams.get("state")).toBe("app-state-0001");
    expect(foreign!.searchParams.get("code")).toBeTruthy();
  });

  it("an unverified e-mail goes to /registerEmail with MFA setup to follow", async () => {
    await seed("unverified@example.com", { emailVerified: false });
    const callback = await signIn(new Journey(), (await appStart("gungnir", "signIn")).path, "unverified@example.com");
    expect(callback.status).toBe(303);
    expect(callback.headers.get("Location")).toBe("/registerEmail");
    expect(setCookies(callback).has(`__Host-${sealedCookies.authRequest.name}`)).toBe(true);
  });

  it("takes the brand from the stored auth request: a client_id on /callback cannot skip the checks", async () => {
    await seed("bypass@example.com", { emailVerified: false });
    const journey = new Journey();
    await reachSignIn(journey, (await appStart("gungnir", "signIn")).path);
    const callback = await signInStep(journey, "/signIn", { username: "bypass@example.com", password: PASSWORD });
    // The partner service skips the e-mail-verified check; naming its client here must not make it apply.
    callback.searchParams.set("client_id", PARTNER.clientId);
    const forged = await journey.request(callback.toString());
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("最初からやり直してください");
    // The same client as the stored request is fine; the checks of the app's own service apply.
    callback.searchParams.set("client_id", GUNGNIR.clientId);
    const honest = await journey.request(callback.toString());
    expect(honest.headers.get("Location")).toBe("/registerEmail");
  });

  it("a second factor the service does not allow goes to /mfa/setup", async () => {
    await seed("sms@example.com", { mfa: { sms: "+8109012345678" } });
    const journey = new Journey();
    await reachSignIn(journey, (await appStart("totpOnly", "signIn")).path);
    const toMfa = await journey.postForm("/signIn", { username: "sms@example.com", password: PASSWORD });
    expect(toMfa.headers.get("Location")).toBe("/signIn/mfa");
    const mfaCode = await emulator.latestCode("+8109012345678");
    const callback = await journey.request((await signInStep(journey, "/signIn/mfa", { mfaCode })).toString());
    expect(callback.status).toBe(303);
    expect(callback.headers.get("Location")).toBe("/mfa/setup");
  });

  it.each([
    ["signUp", "/mfa/setup"],
    ["mfaSetUp", "/mfa/setup"],
    ["passwordChange", "/changePassword"],
    ["emailChange", "/changeEmail"],
    ["passkeys", "/passkeys"],
  ] as const)("view %s continues to %s", async (view, next) => {
    await seed(`${view.toLowerCase()}@example.com`);
    const callback = await signIn(
      new Journey(),
      (await appStart("gungnir", view)).path,
      `${view.toLowerCase()}@example.com`,
    );
    expect(callback.headers.get("Location")).toBe(next);
  });

  it("the partner service skips the checks and asks for consent; agreeing gives the app its code", async () => {
    await seed("partner@example.com", { emailVerified: false });
    const journey = new Journey();
    const start = await appStart("partner", "signIn");
    const callback = await signIn(journey, start.path, "partner@example.com");
    const { response: consentPage } = await journey.follow(callback);
    expect(consentPage.status).toBe(200);
    const html = await consentPage.text();
    expect(html).toContain("情報提供への同意");
    expect(html).not.toMatch(/consent_challenge|login_challenge|login_verifier/);
    const agreed = await journey.postForm(`/${brands.partner.serviceId}/consent`, {
      client_id: brands.partner.clientId,
    });
    expect(agreed.status).toBe(303);
    const { foreign } = await journey.follow(agreed);
    expect(`${foreign!.origin}${foreign!.pathname}`).toBe(start.appRedirect);
    expect(foreign!.searchParams.get("code")).toBeTruthy();
  });

  it("takes the consent's client and scope from the upstream's consent request, never from the link", async () => {
    await seed("tampered@example.com");
    const journey = new Journey();
    const start = await appStart("partner", "signIn");
    let step = await signIn(journey, start.path, "tampered@example.com");
    // Follow the redirects by hand up to the OAuth2 server's consent link, and tamper with it.
    while (
      step.status >= 300 &&
      step.status < 400 &&
      !new URL(step.headers.get("Location")!, ORIGIN).searchParams.has("consent_challenge")
    )
      step = await journey.request(step.headers.get("Location")!);
    const link = new URL(step.headers.get("Location")!, ORIGIN);
    link.searchParams.set("scope", "user.write admin");
    link.searchParams.set("client_id", GUNGNIR.clientId);
    const stored = await journey.request(link.toString());
    expect(stored.status).toBe(303);
    expect(stored.headers.get("Location")).toBe(
      `/${brands.partner.serviceId}/consent?client_id=${brands.partner.clientId}`,
    );
    const consent = await journey.sealed("consent");
    expect(consent).toMatchObject({ clientId: brands.partner.clientId, scope: "openid" });
  });

  it("takes a consent challenge only in a browser that started an authorization for its client", async () => {
    await seed("owner@example.com");
    const owner = new Journey();
    let step = await signIn(owner, (await appStart("partner", "signIn")).path, "owner@example.com");
    while (
      step.status >= 300 &&
      step.status < 400 &&
      !new URL(step.headers.get("Location")!, ORIGIN).searchParams.has("consent_challenge")
    )
      step = await owner.request(step.headers.get("Location")!);
    const link = step.headers.get("Location")!;
    // Planted in a fresh browser, or in one signed in through another brand's app: the parameter modal.
    expect((await new Journey().request(link)).status).toBe(400);
    await seed("someone.else@example.com");
    const other = new Journey();
    await signIn(other, (await appStart("gungnir", "signIn")).path, "someone.else@example.com");
    expect((await other.request(link)).status).toBe(400);
    // The browser that signed in goes on to the consent screen.
    expect((await owner.request(link)).status).toBe(303);
  });

  it("takes a consent only for the login made in this browser, never another user's", async () => {
    await seed("consent.owner@example.com");
    await seed("consent.victim@example.com");
    const owner = new Journey();
    const link = await consentLink(
      owner,
      await signIn(owner, (await appStart("partner", "signIn")).path, "consent.owner@example.com"),
    );
    // The victim has an authorization of the same partner client and is signed in as herself: the owner's link,
    // planted in her browser, would give her app a code for the owner's account.
    const victim = new Journey();
    const own = await consentLink(
      victim,
      await signIn(victim, (await appStart("partner", "signIn")).path, "consent.victim@example.com"),
    );
    expect((await victim.request(link)).status).toBe(400);
    expect((await victim.request(own)).status).toBe(303);
    expect((await owner.request(link)).status).toBe(303);
  });

  it("takes a consent that followed a login only in the browser that took that login", async () => {
    await seed("ext.owner@example.com");
    const owner = new Journey();
    await reachSignIn(owner, (await appStart("partner", "extSignIn")).path);
    const signedIn = await owner.postForm("/signIn", { username: "ext.owner@example.com", password: PASSWORD });
    expect(signedIn.status).toBe(303);
    const link = await consentLink(owner, signedIn);
    // Another browser that started the same client's authorization and reached its own sign-in screen.
    const other = new Journey();
    await reachSignIn(other, (await appStart("partner", "extSignIn")).path);
    expect((await other.request(link)).status).toBe(400);
    expect((await owner.request(link)).status).toBe(303);
  });

  it("consent without redirect_to shows the unexpected-error modal", async () => {
    await seed("partner2@example.com");
    const journey = new Journey();
    const { response: consentPage } = await journey.follow(
      await signIn(journey, (await appStart("partner", "signIn")).path, "partner2@example.com"),
    );
    expect(consentPage.status).toBe(200);
    await emulator.fault({ pathPattern: "/auth/v1/consent", status: 200, body: {} });
    const refused = await journey.postForm(`/${brands.partner.serviceId}/consent`, {});
    expect(refused.status).toBe(502);
    expect(await refused.text()).toContain("しばらく時間をおいてお試しください");
    await journey.request("/__emulator/faults", { method: "DELETE" });
  });

  it("refuses a state that does not match, and a code used twice", async () => {
    await seed("state@example.com");
    const journey = new Journey();
    await reachSignIn(journey, (await appStart("gungnir", "signIn")).path);
    const callback = await signInStep(journey, "/signIn", { username: "state@example.com", password: PASSWORD });
    const forged = new URL(callback);
    forged.searchParams.set("state", "someone-elses-state");
    const wrongState = await journey.request(forged.toString());
    expect(wrongState.status).toBe(400);
    expect(await wrongState.text()).toContain("最初からやり直してください");
    expect((await journey.request(callback.toString())).status).toBe(302);
    const reused = await journey.request(callback.toString());
    expect(reused.status).toBe(400);
  });

  it("an access token that is already expired is not used", async () => {
    await seed("expired@example.com");
    await emulator.clock(-2 * 60 * 60 * 1000);
    const journey = new Journey();
    const callback = await signIn(journey, (await appStart("gungnir", "signIn")).path, "expired@example.com");
    await emulator.clock(0);
    expect(callback.status).toBe(401);
    expect(await callback.text()).toContain("認証情報の有効期限が切れています");
    expect(journey.has(`__Host-${sealedCookies.tokens.name}`)).toBe(false);
  });
});
