import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RANGE_PREFIX_LENGTH, sha1Hex } from "../../forms/pwnedRange";
import { encodeBase64url } from "../../islands/base64url";
import { type SealedCookieName, sealedCookies } from "../../worker/session/cookies";
import { parseSessionKeys } from "../../worker/session/keys";
import { unseal } from "../../worker/session/sealed";
import { type AppBrand, appStart } from "../support/appStart";
import { IDENTITY_TEST_ORIGIN, SENTRY_TEST_DSN } from "../support/sentryRecorder";
import { testDeviceCookie } from "../support/testDevice";
import { GUNGNIR, PARTNER, PASSWORD } from "../support/vocabulary";
import { emulator, ORIGIN } from "./helpers";
import { Journey } from "./journey";

// product §9: production traces every request, and its spans carry no secret (worker/errorReporting.ts, scrubSpan). Here
// requests run as production's do: traced, their calls to the identity API made by fetch (IDENTITY_TEST_ORIGIN, which
// the fake Sentry hands on to the emulator) and so traced as fetch spans, with production's APP_ENV, hence with session
// keys of their own. Journeys carry a login challenge, a consent challenge, an authorization code, an e-mail change
// link's token, a device id, a passkey id and a password's range prefix; every envelope the fake Sentry got is searched
// for each of them.

const recorder = "https://sentry.test/__envelopes";
const envelopes = async (): Promise<string[]> => (await fetch(recorder)).json();

/** Production's session keys are never the public development key (worker/middleware/configurationCheck.tsx). */
const TRACED_KEYS = `traced:${encodeBase64url(crypto.getRandomValues(new Uint8Array(32)))}`;

/** What every request of a traced journey reads instead of the project's environment. */
const TRACED: Partial<Env> = {
  APP_ENV: "prod",
  SENTRY_DSN: SENTRY_TEST_DSN,
  SESSION_KEYS: TRACED_KEYS,
  IDENTITY: undefined,
  IDENTITY_API_ORIGIN: IDENTITY_TEST_ORIGIN,
  PWNED_PASSWORDS_URL: IDENTITY_TEST_ORIGIN,
};

/**
 * The SDK keeps one client per isolate, made with the options of the first request that reported, and the worker
 * tests share their isolate: a client of another file's (the dev environment's, which samples no trace) is dropped
 * before, and this file's after, so that each is made with its own options.
 */
const dropCachedSentryClient = () => {
  delete (globalThis as { __SENTRY_CLOUDFLARE_CLIENT__?: unknown }).__SENTRY_CLOUDFLARE_CLIENT__;
};

/** A browser of a traced journey: the test device (test/support/testDevice.ts), its cookie sealed with the traced keys. */
async function tracedBrowser(): Promise<Journey> {
  const journey = new Journey({ device: "new", env: TRACED });
  journey.setCookie(`${await testDeviceCookie(TRACED_KEYS)}; Path=/; Secure; HttpOnly; SameSite=Lax`);
  return journey;
}

const unique = (name: string) => `${name}.${crypto.randomUUID().slice(0, 8)}@example.com`;

/** A state this browser's sealed cookie holds, opened with the traced keys. */
async function sealedState(journey: Journey, which: SealedCookieName): Promise<Record<string, unknown>> {
  const name = `__Host-${sealedCookies[which].name}`;
  const pair = journey
    .cookieHeader("/")
    .split("; ")
    .find((part) => part.startsWith(`${name}=`));
  expect(pair, `the browser holds no ${name} cookie`).toBeDefined();
  const token = (pair ?? "").slice(name.length + 1);
  return (await unseal(sealedCookies[which].name, token, parseSessionKeys(TRACED_KEYS))) as Record<string, unknown>;
}

/** Follows redirects on the site's origin, keeping every query value that names a secret on the way. */
async function followAll(journey: Journey, response: Response, seen: Map<string, string>): Promise<Response> {
  let current = response;
  for (let hop = 0; hop < 12 && current.status >= 300 && current.status < 400; hop++) {
    const location = new URL(current.headers.get("Location") ?? "", ORIGIN);
    for (const name of ["code", "login_challenge", "consent_challenge", "login_verifier", "consent_verifier"]) {
      const value = location.searchParams.get(name);
      if (value) seen.set(`${name} ${value.slice(0, 6)}…`, value);
    }
    await current.body?.cancel();
    if (location.origin !== ORIGIN) return current;
    current = await journey.request(location.toString());
  }
  return current;
}

/** The app opens the site for `view` at `brand` and the user signs in with the password; answers the last answer. */
async function signIn(journey: Journey, brand: AppBrand, view: "signIn" | "security", email: string) {
  const seen = new Map<string, string>();
  const screen = await journey.request((await appStart(brand, view)).path);
  expect(screen.status).toBe(200);
  await screen.body?.cancel();
  seen.set("login challenge", String((await sealedState(journey, "signIn")).loginChallenge));
  const signedIn = await followAll(
    journey,
    await journey.postForm("/signIn", { username: email, password: PASSWORD }),
    seen,
  );
  return { signedIn, seen };
}

beforeAll(async () => {
  dropCachedSentryClient();
  await fetch(recorder, { method: "DELETE" });
});
afterAll(async () => {
  dropCachedSentryClient();
  await fetch(recorder, { method: "DELETE" });
});

describe("production's traces", { timeout: 60_000 }, () => {
  it("hold no challenge, code, token, password prefix, device id or passkey id, in a span's name or attributes", async () => {
    const secrets = new Map<string, string>([["password", PASSWORD]]);
    const keep = (found: Map<string, string>) => {
      for (const [name, value] of found) secrets.set(name, value);
    };

    // A partner's sign-in: its consent screen (a consent challenge), the consent, the app's authorization code.
    const partnerEmail = unique("traced.partner");
    await emulator.seed({ email: partnerEmail });
    const partner = await tracedBrowser();
    const { signedIn: consentPage, seen: partnerSeen } = await signIn(partner, PARTNER, "signIn", partnerEmail);
    expect(consentPage.status).toBe(200);
    await consentPage.body?.cancel();
    const atApp = await followAll(partner, await partner.postForm(`/${PARTNER.serviceId}/consent`, {}), partnerSeen);
    expect(new URL(atApp.headers.get("Location") ?? "", ORIGIN).origin).toBe(
      `https://app.${PARTNER.serviceId}.example`,
    );
    keep(partnerSeen);
    expect([...partnerSeen.keys()].some((name) => name.startsWith("consent_challenge"))).toBe(true);
    expect([...partnerSeen.keys()].some((name) => name.startsWith("code"))).toBe(true);

    // A signed-in user at /security signs a device out and deletes a passkey, each by an id no list named (the
    // identity API answers that it knows none), and asks for an e-mail change, whose mailed link a fresh browser
    // follows.
    const email = unique("traced.user");
    await emulator.seed({ email });
    const user = await tracedBrowser();
    const { signedIn: securityPage, seen } = await signIn(user, GUNGNIR, "security", email);
    expect(securityPage.status).toBe(200);
    await securityPage.body?.cancel();
    keep(seen);
    const deviceId = crypto.randomUUID();
    secrets.set("device id", deviceId);
    const signedOut = await user.postForm("/security/signout", { id: deviceId });
    expect(signedOut.headers.get("Location")).toBe("/security");
    const passkeyId = encodeBase64url(crypto.getRandomValues(new Uint8Array(32)));
    secrets.set("passkey id", passkeyId);
    const deleted = await user.postForm("/passkeys/delete", { id: passkeyId });
    expect(deleted.status).toBe(404);
    await deleted.body?.cancel();
    const newEmail = unique("traced.new");
    const changeRequested = await user.postForm("/changeEmail", { newEmail });
    expect(changeRequested.status).toBe(200);
    await changeRequested.body?.cancel();
    const link = new URL(await emulator.latestLink(email));
    secrets.set("e-mail change token", link.searchParams.get("token") ?? "");
    const followed = await (await tracedBrowser()).request(link.toString());
    expect(followed.status).toBe(303);
    await followed.body?.cancel();

    // The password field's island asks for its password's range.
    const prefix = (await sha1Hex(PASSWORD)).slice(0, RANGE_PREFIX_LENGTH);
    const range = await user.request(`/password/range/${prefix}`);
    expect(range.status).toBe(200);
    // Read to its end, as the island reads it: the SDK ends a plain-text answer's span when its body has been read.
    expect(await range.text()).toMatch(/^[0-9A-F]{35}:\d+/m);

    // Each request's spans go out once it has answered (the request's own span with the identity API's calls it made,
    // one envelope per trace): wait until every request above has sent its own, whatever its path says.
    const raw = await vi.waitFor(
      async () => {
        const text = (await envelopes()).join("\n");
        for (const path of [
          `/${PARTNER.serviceId}/consent`,
          "/security/signout",
          "/passkeys/delete",
          "/changeEmail",
          "/auth/v1/user/email/confirm",
          "/password/range/",
        ])
          if (!text.includes(`"${ORIGIN}${path}`)) throw new Error(`no span of ${path} recorded yet`);
        return text;
      },
      { timeout: 30_000, interval: 100 },
    );
    for (const [name, value] of secrets) {
      expect(value, `${name}: the test has no value to look for`).toMatch(/.{5,}/);
      // Where it reached Sentry, if it did: the text around it says which span or event carried it.
      const at = raw.indexOf(value);
      const item = raw.lastIndexOf('{"type":', at);
      expect(
        at,
        `${name} reached Sentry: ${raw.slice(item, item + 300)} …${raw.slice(Math.max(0, at - 600), at + 80)}…`,
      ).toBe(-1);
      expect(raw.includes(encodeURIComponent(value)), `${name} reached Sentry, percent-encoded`).toBe(false);
    }
    expect(raw.includes(prefix), "the password's range prefix reached Sentry").toBe(false);
    for (const address of [email, partnerEmail, newEmail]) expect(raw).not.toContain(address);
    expect(raw, "a query reached Sentry").not.toMatch(/[?&](login_challenge|consent_challenge|code|token|state)=/);
    // Real spans, the request's own and its fetches to the identity API, each path there with its ids named.
    expect(raw).toContain('"http.server"');
    expect(raw).toContain('"http.client"');
    for (const url of [
      `${ORIGIN}/password/range/{prefix}`,
      `${IDENTITY_TEST_ORIGIN}/range/{prefix}`,
      `${IDENTITY_TEST_ORIGIN}/auth/v1/user/devices/{id}/signout`,
      `${IDENTITY_TEST_ORIGIN}/auth/v1/passkeys/{id}`,
      `${IDENTITY_TEST_ORIGIN}/auth/v1/user/email/confirm"`,
      `${IDENTITY_TEST_ORIGIN}/auth/v1/consent"`,
      `${IDENTITY_TEST_ORIGIN}/auth/v1/login"`,
    ])
      expect(raw).toContain(url);
  });
});
