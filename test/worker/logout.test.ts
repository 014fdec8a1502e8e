import { beforeEach, describe, expect, it } from "vitest";
import { modals } from "../../messages/modals";
import { sealedCookies } from "../../worker/session/cookies";
import { appStart } from "../support/appStart";
import { DEVICE_CREDENTIAL_COOKIE } from "../support/testDevice";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { emulator, get, sealedCookie } from "./helpers";
import { Journey } from "./journey";

// architecture §8: sign-out clears everything, and tokens live no longer than they can be used.

const tokensCookie = `__Host-${sealedCookies.tokens.name}`;

beforeEach(async () => {
  await emulator.reset();
});

/** A user signed in through the site's own view (mfaSetUp): the tokens cookie is set, the screen is /mfa/setup. */
async function signedIn(email: string): Promise<Journey> {
  await emulator.seed({ email });
  const journey = new Journey();
  const toOauth = await journey.request((await appStart(GUNGNIR, "mfaSetUp")).path);
  const toLogin = await journey.request(toOauth.headers.get("Location")!);
  await journey.request(toLogin.headers.get("Location")!);
  const login = await journey.postForm("/signIn", { username: email, password: PASSWORD });
  const toCallback = await journey.request(login.headers.get("Location")!);
  const callback = await journey.request(toCallback.headers.get("Location")!);
  expect(callback.headers.get("Location")).toBe("/mfa/setup");
  expect(journey.has(tokensCookie)).toBe(true);
  return journey;
}

describe("sign-out (architecture §8)", () => {
  it.each([
    ["a link (GET)", (journey: Journey) => journey.request(`/logout?client_id=${GUNGNIR.clientId}`)],
    ["a form (POST)", (journey: Journey) => journey.postForm("/logout", { client_id: GUNGNIR.clientId })],
  ])("by %s clears every other cookie and all storage, then goes to the brand's service top", async (_, signOut) => {
    const journey = await signedIn(`out.${Math.random().toString(36).slice(2)}@example.com`);
    // Cookies the site's script set (the script marker) go too, one by one, as Clear-Site-Data "cookies" made them.
    journey.setCookie("__Host-js=1; Path=/; Secure; SameSite=Strict");
    const response = await signOut(journey);
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("https://dev.aurora-sec.example/");
    expect(response.headers.get("Clear-Site-Data")).toBe('"storage"');
    const cleared = response.headers.getSetCookie().filter((line) => /Max-Age=0/.test(line));
    const names = [tokensCookie, "__Host-auth-request", "__Host-device", "__Host-oauth2-session", "__Host-service"];
    for (const name of [...names, "__Host-js"]) expect(cleared.some((line) => line.startsWith(`${name}=`))).toBe(true);
    expect(journey.has(tokensCookie)).toBe(false);
    expect((await journey.request("/mfa/setup")).status).toBe(400);
  });

  it("keeps the device credential: signing out does not make the device unknown (docs/devices.md)", async () => {
    const journey = await signedIn(`keeps.device.${Math.random().toString(36).slice(2)}@example.com`);
    const credential = await journey.sealedKept("deviceCredential");
    const response = await journey.request(`/logout?client_id=${GUNGNIR.clientId}`);
    expect(response.status).toBe(303);
    // The browser would drop every cookie of the site on "cookies", the credential with them.
    expect(response.headers.get("Clear-Site-Data")).toBe('"storage"');
    const touched = response.headers.getSetCookie().filter((line) => line.startsWith(`${DEVICE_CREDENTIAL_COOKIE}=`));
    expect(touched).toEqual([]);
    expect(await journey.sealed("deviceCredential")).toEqual(credential);
    expect(journey.has(tokensCookie)).toBe(false);
  });

  it("never goes where a request says: an unknown client_id leads to the current brand's service top", async () => {
    const response = await get("/logout?client_id=https%3A%2F%2Fevil.example");
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("Location")!).hostname).not.toContain("evil");
  });
});

describe("token lifetime (product §5; architecture §8)", () => {
  /** Signs in through an own view and answers the Max-Age of the tokens cookie the callback sets. */
  async function tokensCookieMaxAge(email: string, beforeCallback: () => Promise<unknown> = async () => undefined) {
    const journey = new Journey();
    await emulator.seed({ email });
    const toOauth = await journey.request((await appStart(GUNGNIR, "mfaSetUp")).path);
    const toLogin = await journey.request(toOauth.headers.get("Location")!);
    await journey.request(toLogin.headers.get("Location")!);
    const login = await journey.postForm("/signIn", { username: email, password: PASSWORD });
    const toCallback = await journey.request(login.headers.get("Location")!);
    await beforeCallback();
    const callback = await journey.request(toCallback.headers.get("Location")!);
    const line = callback.headers.getSetCookie().find((cookie) => cookie.startsWith(`${tokensCookie}=`));
    return { maxAge: Number(/Max-Age=(\d+)/.exec(line ?? "")?.[1]), journey };
  }

  it("keeps the tokens cookie as long as the refresh token lasts, and no longer", async () => {
    const { maxAge } = await tokensCookieMaxAge("lifetime@example.com");
    expect(maxAge).toBe(30 * 24 * 60 * 60);
  });

  it("ends the tokens cookie with the access token when no refresh token came", async () => {
    // A real access token from an earlier sign-in, answered by the token endpoint without a refresh token.
    const { journey: earlier } = await tokensCookieMaxAge("first@example.com");
    const { accessToken, expiresAt } = await earlier.sealedKept("tokens");
    const noRefresh = { access_token: accessToken, expires_in: 3600, token_type: "bearer", scope: "user.write" };
    const { maxAge } = await tokensCookieMaxAge("second@example.com", () =>
      emulator.fault({ pathPattern: "/oauth2/token", status: 200, body: noRefresh }),
    );
    const untilExpiry = expiresAt - Math.floor(Date.now() / 1000);
    expect(maxAge).toBeGreaterThan(0);
    expect(Math.abs(maxAge - untilExpiry)).toBeLessThanOrEqual(5);
  });

  it("shows the expiry modal, and uses no bearer token, when the access token has expired and cannot be refreshed", async () => {
    const expired = await sealedCookie("tokens", {
      clientId: GUNGNIR.clientId,
      accessToken: "expired-access-token",
      expiresAt: Math.floor(Date.now() / 1000) - 60,
      scope: "user.write",
      tokenType: "bearer",
      hashedUserName: "0".repeat(64),
    });
    const response = await get("/mfa/setup", [expired]);
    expect(response.status).toBe(401);
    expect(await response.text()).toContain(modals.tokenExpired.title);
  });

  it("refreshes an expired access token once with the refresh token, and keeps the new tokens", async () => {
    const journey = await signedIn("refresh@example.com");
    const stored = journey
      .cookieHeader("/")
      .split("; ")
      .find((pair) => pair.startsWith(`${tokensCookie}=`));
    expect(stored).toBeTruthy();
    // The same refresh token with an access token the site sees as expired.
    const { refreshToken } = await journey.sealedKept("tokens");
    expect(refreshToken).toBeTruthy();
    const stale = await sealedCookie("tokens", {
      clientId: GUNGNIR.clientId,
      accessToken: "stale",
      refreshToken,
      expiresAt: Math.floor(Date.now() / 1000) - 60,
      scope: "user.write",
      tokenType: "bearer",
      hashedUserName: "0".repeat(64),
    });
    const response = await get("/mfa/setup", [stale]);
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie().some((line) => line.startsWith(`${tokensCookie}=`))).toBe(true);
  });
});
