import { TOTP } from "otpauth";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { RANGE_PREFIX_LENGTH, sha1Hex } from "../../forms/pwnedRange";
import { logEvent } from "../../worker/log";
import { GUNGNIR, PARTNER, PASSWORD, TOTP_SECRET } from "../support/vocabulary";
import { emulator, ORIGIN } from "./helpers";
import { Journey, reachLoginScreen } from "./journey";

// One JSON line per request (id, environment, brand, route, status, outcome, upstream calls with their
// latency, the rate-limit decision, duration), and no secret in any log line: journeys are driven while every
// console call is recorded, then every line is searched for what those journeys typed, received or were sent.

let spies: MockInstance[] = [];
const lines = () => spies.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(" ")));

beforeEach(() => {
  spies = (["log", "info", "warn", "error", "debug"] as const).map((level) =>
    vi.spyOn(console, level).mockImplementation(() => {}),
  );
});
afterEach(() => {
  for (const spy of spies) spy.mockRestore();
});

const SECRET_PARAMETERS = [
  "code",
  "state",
  "login_challenge",
  "consent_challenge",
  "login_verifier",
  "consent_verifier",
];

/** Follows the journey's redirects to the end, remembering every Location on the way (codes, challenges). */
async function followAll(journey: Journey, response: Response, seen: Set<string>): Promise<Response> {
  let current = response;
  for (let hop = 0; hop < 12 && current.status >= 300 && current.status < 400; hop++) {
    const location = new URL(current.headers.get("Location") ?? "", ORIGIN);
    for (const name of SECRET_PARAMETERS) {
      const value = location.searchParams.get(name);
      if (value) seen.add(value);
    }
    if (location.origin !== ORIGIN) return current;
    current = await journey.request(location.toString());
  }
  return current;
}

/** Every value that must never reach a log: what was typed, mailed, issued or set as a cookie. */
function cookieValues(journey: Journey): string[] {
  return (
    journey
      .cookieHeader("/oauth2/")
      .split("; ")
      // The last service's id is the one cookie that is not secret (docs/security.md, "Cookies").
      .filter((pair) => !pair.startsWith("__Host-service="))
      .map((pair) => pair.slice(pair.indexOf("=") + 1))
      .filter((value) => value.length >= 8)
  );
}

describe("structured logs", () => {
  it("say nothing secret while journeys sign up, sign in with a second factor, consent, sign out, reset a password and set up a second factor", async () => {
    const secrets = new Set<string>([PASSWORD, TOTP_SECRET]);
    const emails = [
      "log.newcomer@example.com",
      "log.totp@example.com",
      "log.partner@example.com",
      "log.mfa@example.com",
    ];

    // Sign-up with the mailed code, then the site's callback (tokens) and MFA setup.
    const newcomer = new Journey();
    await reachLoginScreen(newcomer, GUNGNIR, "signUp");
    await newcomer.postForm("/signUp/checkEmail", { email: emails[0]! });
    await newcomer.postForm("/signUp/inputPassword", { password: PASSWORD });
    const signUpCode = await emulator.latestCode(emails[0]!);
    secrets.add(signUpCode);
    const signedUp = await followAll(
      newcomer,
      await newcomer.postForm("/signUp/confirmMail", { code: signUpCode }),
      secrets,
    );
    expect(signedUp.status).toBe(200);
    for (const value of cookieValues(newcomer)) secrets.add(value);

    // Sign-in with an authenticator code, to the app's code.
    await emulator.seed({ email: emails[1]!, mfa: { totp: TOTP_SECRET } });
    const member = new Journey();
    const { challenge } = await reachLoginScreen(member, GUNGNIR, "signIn");
    secrets.add(challenge);
    await member.postForm("/signIn", { username: emails[1]!, password: PASSWORD });
    const totpCode = new TOTP({ secret: TOTP_SECRET }).generate();
    secrets.add(totpCode);
    const atApp = await followAll(member, await member.postForm("/signIn/mfa", { mfaCode: totpCode }), secrets);
    expect(atApp.status).toBe(302);
    expect(new URL(atApp.headers.get("Location") ?? "").searchParams.get("code")).toBeTruthy();
    for (const value of cookieValues(member)) secrets.add(value);

    // The partner service: sign-in, consent, sign-out.
    await emulator.seed({ email: emails[2]! });
    const partnerUser = new Journey();
    await reachLoginScreen(partnerUser, PARTNER, "signIn");
    const consentPage = await followAll(
      partnerUser,
      await partnerUser.postForm("/signIn", { username: emails[2]!, password: PASSWORD }),
      secrets,
    );
    expect(consentPage.status).toBe(200);
    for (const value of cookieValues(partnerUser)) secrets.add(value);
    await followAll(partnerUser, await partnerUser.postForm(`/${PARTNER.serviceId}/consent`, {}), secrets);
    await partnerUser.request(`/logout?client_id=${PARTNER.clientId}`);
    // A refused password and a malformed form, which log refusals and form errors.
    await member.postForm("/signIn", { username: emails[1]!, password: "Wr0ng!Passw0rd" });
    secrets.add("Wr0ng!Passw0rd");

    // Password reset by the mailed link, and two-factor setup with an authenticator.
    const resetter = new Journey();
    await resetter.postForm("/resetPassword", { client_id: GUNGNIR.clientId, email: emails[1]! });
    const link = new URL((await emulator.latest(emails[1]!)).link ?? "");
    for (const name of ["code", "username"]) secrets.add(link.searchParams.get(name) ?? "");
    secrets.add("N3w!Passw0rd");
    // The link's GET, its redirect and its page: the link kept in a cookie.
    const linkPage = await followAll(resetter, await resetter.request(link.toString()), secrets);
    expect(linkPage.status).toBe(200);
    await linkPage.body?.cancel();
    expect(resetter.has("__Host-reset-link")).toBe(true);
    for (const value of cookieValues(resetter)) secrets.add(value);
    const reset = await resetter.postForm(`/${GUNGNIR.serviceId}/forgotPassword`, {
      client_id: GUNGNIR.clientId,
      code: link.searchParams.get("code") ?? "",
      username: link.searchParams.get("username") ?? "",
      newPassword: "N3w!Passw0rd",
    });
    expect(reset.status).toBe(200);
    await emulator.seed({ email: emails[3]! });
    const setter = new Journey();
    await reachLoginScreen(setter, GUNGNIR, "mfaSetUp");
    await followAll(setter, await setter.postForm("/signIn", { username: emails[3]!, password: PASSWORD }), secrets);
    const totpPage = await (await setter.request("/mfa/setup/TOTP")).text();
    const secret = /name="secret" value="([A-Z2-7=]+)"/.exec(totpPage)?.[1] ?? "";
    expect(secret).not.toBe("");
    secrets.add(secret);
    const setupCode = new TOTP({ secret }).generate();
    secrets.add(setupCode);
    const setUp = await setter.postForm("/mfa/setup/TOTP", { secret, account: emails[3]!, mfaOtpCode: setupCode });
    expect(setUp.status).toBe(200);
    for (const value of cookieValues(setter)) secrets.add(value);

    const logged = lines();
    expect(logged.length).toBeGreaterThan(20);
    for (const line of logged) {
      for (const secret of secrets) expect(line, "a log line holds a secret").not.toContain(secret);
      for (const email of emails) expect(line.toLowerCase()).not.toContain(email);
      expect(line, "an e-mail address in a log line").not.toMatch(/[\w.+-]+@[\w-]+\.[\w.-]+/);
      expect(line, "a JWT or JWE in a log line").not.toMatch(/eyJ[\w-]{10,}/);
    }
  });

  it("write one JSON line per request with what an operator needs", async () => {
    await emulator.seed({ email: "log.fields@example.com" });
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    for (const spy of spies) spy.mockClear();
    // A password of this test's own: its leaked-list range is not in the edge cache yet, so the line names that call.
    const wrong = `Wr0ng!${crypto.randomUUID()}`;
    await journey.postForm("/signIn", { username: "log.fields@example.com", password: wrong });
    const requests = lines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.event === "request");
    expect(requests).toHaveLength(1);
    const [entry] = requests;
    expect(entry).toMatchObject({
      level: "warn",
      environment: "dev",
      brand: GUNGNIR.serviceId,
      route: "signIn",
      method: "POST",
      path: "/signIn",
      status: 401,
      outcome: "loginFailed",
      rateLimit: { class: "credential", limited: false },
      passwordCheck: "not_listed",
    });
    expect(entry?.requestId).toEqual(expect.any(String));
    expect(entry?.durationMs).toEqual(expect.any(Number));
    expect(entry?.upstream).toEqual([
      { call: "GET /range", status: 200, ms: expect.any(Number) },
      { call: "POST /auth/v1/login", status: 401, ms: expect.any(Number) },
    ]);
  });

  it("name the leaked-password range route without its prefix, on the request's line and any other with a path", async () => {
    // docs/security.md "Leaked passwords": the prefix narrows down a password being typed.
    const prefix = (await sha1Hex(PASSWORD)).slice(0, RANGE_PREFIX_LENGTH);
    const journey = new Journey();
    await (await journey.request(`/password/range/${prefix}`)).text();
    // A rate-limit refusal or an error the site answered logs the request's path too: the same guard names it.
    logEvent("warn", "rate_limited", { path: `/password/range/${prefix}` });
    const logged = lines();
    const entries = logged.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.filter((entry) => entry.event === "request")).toEqual([
      expect.objectContaining({ route: "passwordRange", path: "/password/range/{prefix}" }),
    ]);
    expect(entries.filter((entry) => entry.event === "rate_limited")).toEqual([
      expect.objectContaining({ path: "/password/range/{prefix}" }),
    ]);
    for (const line of logged) expect(line, "a log line holds the prefix").not.toContain(prefix);
  });

  it("name the route that answered, a redirect's outcome, and a page's modal", async () => {
    const journey = new Journey();
    await journey.request("/no/such/page");
    await journey.request("/signIn");
    const entries = lines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.event === "request");
    expect(entries.map((entry) => [entry.route, entry.status, entry.outcome])).toEqual([
      ["notFound", 404, "not_found"],
      ["signIn", 400, "parameterError"],
    ]);
  });
});
