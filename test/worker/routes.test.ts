import { describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { type SealedCookieName, sealedCookies } from "../../worker/session/cookies";
import { setCookies } from "../support/cookieJar";
import { screenCases } from "../support/screens";
import { get, sealedCookie } from "./helpers";

const brand = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };

async function cookiesFor(state: Record<string, unknown>): Promise<string[]> {
  return Promise.all(
    Object.entries(state).map(([which, value]) => sealedCookie(which as SealedCookieName, value as never)),
  );
}

describe("every SPEC §2 route answers with its screen", () => {
  it.each(screenCases(brand).map((screen) => [screen.name, screen] as const))("%s", async (_name, screen) => {
    const response = await get(screen.path, await cookiesFor(screen.state));
    expect(response.status).toBe(screen.status);
    expect(response.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain(screen.expectText);
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain(`<html lang="ja">`);
  });
});

describe("missing parameters and state (SPEC §2, §8)", () => {
  const q = `client_id=${brand.clientId}`;
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
    ["consent without challenge", `/${brand.serviceId}/consent?${q}&scope=openid`],
    ["reset without client_id", "/resetPassword"],
    ["reset-sent without client_id", "/resetPassword/sendMail"],
    ["new password without code", `/${brand.serviceId}/forgotPassword?${q}&username=u`],
    ["initiate password without username", `/${brand.serviceId}/initiatePassword?${q}&code=1`],
    ["change-e-mail result with an unknown result", `/${brand.serviceId}/changeEmail?${q}&result=maybe`],
    ["forced password without state", "/changePasswordInForceChangePassword"],
    ["MFA setup without tokens", "/mfa/setup"],
    ["TOTP setup without tokens", "/mfa/setup/TOTP"],
    ["SMS setup without tokens", "/mfa/setup/SMS"],
    ["callback without code", "/callback?state=abcdefgh"],
  ])("%s → 400 with the parameter-problem modal", async (_name, path) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("パラメータに不備がありました");
    expect(html).toMatch(/<dialog open=""[^>]*id="message-modal"/);
  });

  it.each([
    ["an unknown tenant", "/no-such-brand/forgotPassword?client_id=x&code=1&username=u"],
    ["the neutral theme's id", "/default/consent?client_id=x&scope=a&consent_challenge=b"],
    ["a screen path under a tenant", "/gungnir-aurora/signIn"],
  ])("%s → 404", async (_name, path) => {
    expect((await get(path)).status).toBe(404);
  });
});

describe("the OAuth2 server's login URL (SPEC §2 entry)", () => {
  it.each([
    "extSignIn",
    "signIn",
    "signInWithCheckUsername",
    "signInForceTOTPMFA",
    "mfaSetUp",
    "emailChange",
    "passwordChange",
  ])("view %s keeps the challenge in the sign-in cookie and goes to /signIn", async (view) => {
    const response = await get(`/?login_challenge=challenge-1&client_id=${brand.clientId}&view=${view}`);
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("Location")!, "https://x").pathname).toBe("/signIn");
    const cookie = setCookies(response).get(`__Host-${sealedCookies.signIn.name}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain("challenge-1");
    const signIn = await get("/signIn", [cookie!.split(";")[0]!]);
    expect(signIn.status).toBe(200);
  });

  it("view signUp keeps the challenge in the sign-up cookie and goes to /signUp/checkEmail", async () => {
    const response = await get(`/?login_challenge=challenge-2&client_id=${brand.clientId}&view=signUp`);
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("Location")!, "https://x").pathname).toBe("/signUp/checkEmail");
    const cookie = setCookies(response).get(`__Host-${sealedCookies.signUp.name}`)!;
    expect((await get("/signUp/checkEmail", [cookie.split(";")[0]!])).status).toBe(200);
    expect((await get("/signIn", [cookie.split(";")[0]!])).status).toBe(200);
  });
});
