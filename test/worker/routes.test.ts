import { describe, expect, it } from "vitest";
import type { View } from "../../worker/session/authRequest";
import { sealedCookies } from "../../worker/session/cookies";
import { setCookies } from "../support/cookieJar";
import { expectNoSecrets } from "../support/expectations";
import { screenCases } from "../support/screens";
import { GUNGNIR } from "../support/vocabulary";
import { emulator, get, openScreen } from "./helpers";
import { Journey, loginUrlOf, reachLoginScreen } from "./journey";

describe("every product §2 route answers with its screen", () => {
  it.each(screenCases(GUNGNIR).map((screen) => [screen.name, screen] as const))("%s", async (_name, screen) => {
    const response = await openScreen(screen, GUNGNIR);
    expect(response.status).toBe(screen.status);
    expect(response.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain(screen.expectText);
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain(`<html lang="ja">`);
  });
});

describe("missing parameters and state (product §2, §8)", () => {
  const q = `client_id=${GUNGNIR.clientId}`;
  it.each([
    ["/ without parameters", "/"],
    ["/ without view", "/?login_challenge=c&client_id=x"],
    ["/ with an unknown view", "/?login_challenge=c&client_id=x&view=admin"],
    ["/ with an over-long challenge", `/?login_challenge=${"c".repeat(3000)}&client_id=x&view=signIn`],
    ["sign-up e-mail without state", "/signUp/checkEmail"],
    ["sign-up password without state", "/signUp/inputPassword"],
    ["sign-up code without state", "/signUp/confirmMail"],
    ["sign-in without state", "/signIn"],
    ["second factor without state", "/signIn/mfa"],
    ["consent without challenge", `/${GUNGNIR.serviceId}/consent?${q}&scope=openid`],
    ["reset without client_id", "/resetPassword"],
    ["reset-sent without client_id", "/resetPassword/sendMail"],
    ["new password without code", `/${GUNGNIR.serviceId}/forgotPassword?${q}&username=u`],
    ["initiate password without username", `/${GUNGNIR.serviceId}/initiatePassword?${q}&code=1`],
    ["new password without the link's cookie", `/${GUNGNIR.serviceId}/forgotPassword?${q}`],
    ["change-e-mail result with an unknown result", `/${GUNGNIR.serviceId}/changeEmail?${q}&result=maybe`],
    ["forced password without state", "/changePasswordInForceChangePassword"],
    ["MFA setup without tokens", "/mfa/setup"],
    ["TOTP setup without tokens", "/mfa/setup/TOTP"],
    ["SMS setup without tokens", "/mfa/setup/SMS"],
    ["callback without code", "/callback?state=abcdefgh"],
    ["restart without an auth request", "/restart"],
  ])("%s → 400 with the parameter-problem modal", async (_name, path) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("パラメータに不備がありました");
    expect(html).toMatch(/<dialog open=""[^>]*id="message-modal"/);
  });

  it.each([
    ["an unknown brand", "/no-such-brand/forgotPassword?client_id=x&code=1&username=u"],
    ["the neutral theme's id", "/default/consent?client_id=x&scope=a&consent_challenge=b"],
    ["a screen path under a brand", "/gungnir-aurora/signIn"],
  ])("%s → 404", async (_name, path) => {
    expect((await get(path)).status).toBe(404);
  });
});

describe("the OAuth2 server's login URL (product §2 entry)", () => {
  /**
   * The app opens the site for `view`; answers the login URL the OAuth2 server gives for this browser's authorization
   * when asked by a client that is not the app's start (the login URL stays for every such client).
   */
  async function loginUrlFor(journey: Journey, view: View): Promise<URL> {
    const { challenge } = await reachLoginScreen(journey, GUNGNIR, view);
    return loginUrlOf(journey, challenge);
  }

  it.each([
    "extSignIn",
    "signIn",
    "signInWithCheckUsername",
    "signInForceTOTPMFA",
    "mfaSetUp",
    "emailChange",
    "passwordChange",
    "passkeys",
  ] as const)("view %s keeps the challenge in the sign-in cookie and goes to /signIn", async (view) => {
    const journey = new Journey();
    const loginUrl = await loginUrlFor(journey, view);
    const response = await journey.request(loginUrl.toString());
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("Location")!, "https://x").pathname).toBe("/signIn");
    const cookie = setCookies(response).get(`__Host-${sealedCookies.signIn.name}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expectNoSecrets(cookie ?? "", [loginUrl.searchParams.get("login_challenge")]);
    expect((await journey.request("/signIn")).status).toBe(200);
  });

  it("view signUp keeps the challenge in the sign-up cookie and goes to /signUp/checkEmail", async () => {
    const journey = new Journey();
    const response = await journey.request((await loginUrlFor(journey, "signUp")).toString());
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("Location")!, "https://x").pathname).toBe("/signUp/checkEmail");
    expect(setCookies(response).has(`__Host-${sealedCookies.signUp.name}`)).toBe(true);
    expect((await journey.request("/signUp/checkEmail")).status).toBe(200);
    expect((await journey.request("/signIn")).status).toBe(200);
  });

  it("takes a login challenge only from the browser that started its authorization", async () => {
    // The attacker starts an authorization and plants its login URL in the victim's browser.
    const attacker = new Journey();
    const planted = await loginUrlFor(attacker, "signIn");
    const victim = new Journey();
    const bare = await victim.request(planted.toString());
    expect(bare.status).toBe(400);
    expect(setCookies(bare).has(`__Host-${sealedCookies.signIn.name}`)).toBe(false);
    // A victim in the middle of an authorization of its own does not take the planted one either.
    await loginUrlFor(victim, "signIn");
    expect((await victim.request(planted.toString())).status).toBe(400);
    // A challenge nobody issued, or one named for another client, is refused too.
    const forged = new URL(planted);
    forged.searchParams.set("login_challenge", "never-issued-challenge");
    expect((await victim.request(forged.toString())).status).toBe(400);
    // The attacker's own browser goes on.
    expect((await attacker.request(planted.toString())).status).toBe(303);
  });

  it.each([
    ["is in maintenance", { status: 503, body: { type: "maintenance" } }, 503, "システムメンテナンス中"],
    ["drops the connection", { drop: true }, 502, "エラーが発生しました"],
  ])(
    "shows the product §8 modal, not the parameter problem, when the upstream %s at the login URL",
    async (_, fault, status, title) => {
      const journey = new Journey();
      const loginUrl = await loginUrlFor(journey, "signIn");
      await emulator.fault({ method: "GET", pathPattern: "/auth/v1/login", ...fault });
      const response = await journey.request(loginUrl.toString());
      expect(response.status).toBe(status);
      expect(await response.text()).toContain(title);
      // The user's state survives: the same link works once the upstream is back.
      expect((await journey.request(loginUrl.toString())).status).toBe(303);
    },
  );
});
