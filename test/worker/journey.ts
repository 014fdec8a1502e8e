import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { View } from "../../worker/session/authRequest";
import { type SealedCookieName, type SealedState, sealedCookies } from "../../worker/session/cookies";
import { parseSessionKeys } from "../../worker/session/keys";
import { unseal } from "../../worker/session/sealed";
import { type AppBrand, appStart } from "../support/appStart";
import { CookieJar } from "../support/cookieJar";
import { formPost } from "../support/forms";
import { type RequestOptionsJSON, SoftAuthenticator } from "../support/softAuthenticator";
import { testDeviceCookie } from "../support/testDevice";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { clientIp, emulator, identityPost, ORIGIN, type SiteFetchOptions, siteFetch } from "./helpers";

/** What a Journey's browser is beyond its cookies. */
export interface JourneyOptions {
  /**
   * docs/devices.md: the browser starts as the test device (test/support/testDevice.ts), which seeded users know, unless
   * it is `new`: no device credential, as a browser that never signed in.
   */
  device?: "test" | "new";
  /** Vars every request of this browser reads instead of the project's (e.g. `DEVICE_CONFIRMATION: "off"`). */
  env?: Partial<Env>;
  /** What the edge says of every request (`request.cf`): its country and region, say. */
  cf?: Partial<IncomingRequestCfProperties>;
}

/**
 * A tiny browser for journeys inside workerd: keeps the cookies the site and the emulator set and follows
 * redirects while they stay on the site's origin. It holds the test device's credential unless told otherwise.
 */
export class Journey {
  private readonly jar = new CookieJar();
  /** One browser, one client address (the per-IP rate limits count it). */
  readonly ip = clientIp();
  private device: Promise<void> | undefined;

  constructor(private readonly options: JourneyOptions = {}) {}

  /** The test device's cookie, planted before the first request (sealing is asynchronous). */
  private plantDevice(): Promise<void> {
    this.device ??= (async () => {
      if (this.options.device === "new") return;
      this.setCookie(`${await testDeviceCookie(env.SESSION_KEYS ?? "")}; Path=/; Secure; HttpOnly; SameSite=Lax`);
    })();
    return this.device;
  }

  cookieHeader(path: string): string {
    return this.jar.header(path);
  }

  has(name: string): boolean {
    return this.jar.has(name);
  }

  /** The state this browser's sealed cookie holds, opened with the dev keys as the site opens it. */
  async sealed<N extends SealedCookieName>(which: N): Promise<SealedState<N> | undefined> {
    const name = `__Host-${sealedCookies[which].name}`;
    const pair = this.jar
      .header("/")
      .split("; ")
      .find((part) => part.startsWith(`${name}=`));
    if (!pair) return undefined;
    const data = await unseal(
      sealedCookies[which].name,
      pair.slice(name.length + 1),
      parseSessionKeys(env.SESSION_KEYS),
    );
    return sealedCookies[which].schema.parse(data) as SealedState<N>;
  }

  /** The state of a sealed cookie this browser must hold: fails the test when it holds none. */
  async sealedKept<N extends SealedCookieName>(which: N): Promise<SealedState<N>> {
    const state = await this.sealed(which);
    expect(state, `the browser holds no ${sealedCookies[which].name} cookie`).toBeDefined();
    return state as SealedState<N>;
  }

  /** A cookie this browser's own script set (document.cookie), as a Set-Cookie line. */
  setCookie(line: string): void {
    this.jar.remember(new Response(null, { headers: { "Set-Cookie": line } }));
  }

  /** One request of this browser; `options` are for this request only (e.g. `SHORT_TIMEOUT`). */
  async request(target: string, init: RequestInit = {}, options?: SiteFetchOptions): Promise<Response> {
    await this.plantDevice();
    const url = new URL(target, ORIGIN);
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(url.pathname);
    if (cookie) headers.set("Cookie", cookie);
    if (init.method === "POST" && !headers.has("Origin")) headers.set("Origin", ORIGIN);
    if (!headers.has("CF-Connecting-IP")) headers.set("CF-Connecting-IP", this.ip);
    const cf = this.options.cf ? { cf: this.options.cf } : {};
    const env = { ...this.options.env, ...options?.env };
    const response = await siteFetch(
      url.toString(),
      { ...init, ...cf, headers, redirect: "manual" },
      { ...options, env },
    );
    this.jar.remember(response);
    return response;
  }

  postForm(path: string, form: Record<string, string>, options?: SiteFetchOptions): Promise<Response> {
    return this.request(path, formPost(form), options);
  }

  /**
   * Sends a form of `page` as an engine without Fetch Metadata does (Safari < 16.4: no Sec-Fetch-Site), its Origin
   * as the page's Referrer-Policy makes it (Fetch, "serializing a request origin"): `null` under `no-referrer`.
   */
  submitFrom(page: Response, path: string, form: Record<string, string>): Promise<Response> {
    const origin = page.headers.get("Referrer-Policy") === "no-referrer" ? "null" : ORIGIN;
    return this.request(path, formPost(form, { Origin: origin }));
  }

  /** A JSON call as the app or an OAuth2 client makes it through the site's proxy. */
  postJson(path: string, body: unknown, options?: SiteFetchOptions): Promise<Response> {
    return this.request(
      path,
      {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "Content-Type": "application/json" },
      },
      options,
    );
  }

  /** Follows redirects on the site's origin; answers the last response, or the first foreign Location. */
  async follow(response: Response, limit = 10): Promise<{ response: Response; foreign?: URL }> {
    let current = response;
    for (let hop = 0; hop < limit && current.status >= 300 && current.status < 400; hop++) {
      const next = new URL(current.headers.get("Location") ?? "", ORIGIN);
      await current.body?.cancel();
      if (next.origin !== ORIGIN) return { response: current, foreign: next };
      current = await this.request(next.toString());
    }
    return { response: current };
  }
}

/**
 * The app opens the site for `view`: the site asks the OAuth2 server itself, keeps the login challenge in the
 * sign-in or sign-up cookie and answers that screen (docs/security.md, "Redirects"). Answers the challenge and it.
 */
export async function reachLoginScreen(
  journey: Journey,
  brand: AppBrand,
  view: View,
): Promise<{ challenge: string; response: Response }> {
  const response = await journey.request((await appStart(brand, view)).path);
  const kept = await journey.sealedKept(view === "signUp" ? "signUp" : "signIn");
  expect(kept.loginChallenge, "the app's start kept no login challenge").toMatch(/.{16,}/);
  return { challenge: kept.loginChallenge, response };
}

/**
 * The authorization request the site made for this browser's login challenge, as the OAuth2 server recorded it (its
 * login request's `request_url`, Hydra's as the emulator's): the query the site sent to the authorization endpoint.
 */
export async function authorizationAsked(challenge: string): Promise<URL> {
  if (!env.IDENTITY) throw new Error("the worker project binds the emulator as IDENTITY");
  const asked = await env.IDENTITY.fetch(
    `${ORIGIN}/auth/v1/login?${new URLSearchParams({ login_challenge: challenge })}`,
    { headers: { "X-Forwarded-Proto": "https", "X-Forwarded-Host": new URL(ORIGIN).host } },
  );
  if (asked.status !== 200) throw new Error(`no login request for ${challenge}: ${asked.status}`);
  return new URL(((await asked.json()) as { request_url: string }).request_url);
}

/** What the site asked the authorization endpoint when its answer (an app's start, a page) kept a login challenge. */
export async function authorizationAskedBy(response: Response): Promise<URL> {
  await response.body?.cancel();
  for (const which of ["signIn", "signUp"] as const) {
    const name = `__Host-${sealedCookies[which].name}`;
    const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
    if (!line) continue;
    const token = line.slice(name.length + 1, line.indexOf(";"));
    const state = sealedCookies[which].schema.parse(
      await unseal(sealedCookies[which].name, token, parseSessionKeys(env.SESSION_KEYS)),
    );
    return authorizationAsked(state.loginChallenge);
  }
  throw new Error(`the answer (${response.status}) kept no login challenge`);
}

/** The login URL the OAuth2 server gives for this browser's authorization, asked again as an API client does. */
export async function loginUrlOf(journey: Journey, challenge: string): Promise<URL> {
  const asked = await authorizationAsked(challenge);
  const answer = await journey.request(`${asked.pathname}${asked.search}`, { headers: { Accept: "application/json" } });
  await answer.body?.cancel();
  return new URL(answer.headers.get("Location") ?? "", ORIGIN);
}

/** The island's same-origin fetch of this browser's passkey registration options (docs/passkeys.md). */
export function askRegistrationOptions(journey: Journey, site = "same-origin"): Promise<Response> {
  return journey.request("/passkey/registration/options", { ...formPost({}), headers: { "Sec-Fetch-Site": site } });
}

/**
 * A new browser at `brand`'s sign-in signs in with the passkey alone, as the sign-in page's island does: answers the
 * browser and the answer to the signed assertion.
 */
export async function passkeySignIn(
  authenticator: SoftAuthenticator,
  brand: AppBrand,
): Promise<{ journey: Journey; signedIn: Response }> {
  const journey = new Journey();
  const { response } = await reachLoginScreen(journey, brand, "signIn");
  await response.body?.cancel();
  const assertion = await journey.request("/signIn/passkey/options", {
    ...formPost({}),
    headers: { "Sec-Fetch-Site": "same-origin" },
  });
  const { publicKey } = (await assertion.json()) as { publicKey: RequestOptionsJSON };
  const signedIn = await journey.postForm("/signIn/passkey", {
    credential: JSON.stringify(await authenticator.authenticate(publicKey)),
  });
  return { journey, signedIn };
}

/**
 * A customer who signed in with a password for an own view (so the site holds a token) and registered a passkey with
 * it (docs/passkeys.md): the address, the passkey's authenticator, and the browser, signed in.
 */
export async function customerWithPasskey(
  name: string,
  authenticator = new SoftAuthenticator({ origin: ORIGIN }),
): Promise<{ email: string; authenticator: SoftAuthenticator; journey: Journey }> {
  const email = `${name}.${crypto.randomUUID().slice(0, 8)}@example.com`;
  await emulator.seed({ email });
  const journey = new Journey();
  await reachLoginScreen(journey, GUNGNIR, "passwordChange");
  await journey.follow(
    await journey.postForm("/signIn", { client_id: GUNGNIR.clientId, username: email, password: PASSWORD }),
  );
  const token = (await journey.sealedKept("tokens")).accessToken;
  expect((await identityPost("/auth/v1/passkeys/registration/code", token)).status).toBe(201);
  const options = await identityPost("/auth/v1/passkeys/attestation/options", token, {
    email_code: await emulator.latestCode(email),
  });
  expect(options.status).toBe(200);
  const { session, ...creation } = (await options.json()) as { session: string } & Parameters<
    SoftAuthenticator["register"]
  >[0];
  const registered = await identityPost("/auth/v1/passkeys/attestation/result", token, {
    session,
    ...(await authenticator.register(creation)),
  });
  expect(registered.status).toBe(201);
  return { email, authenticator, journey };
}
