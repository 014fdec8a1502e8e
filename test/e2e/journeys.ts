import * as oauth from "oauth4webapi";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { SCRIPT_MARKER_COOKIE } from "../../islands/scriptMarker";
import type { AppAuthQuery, View } from "../../worker/session/authRequest";
import { APP_STATE, appStart } from "../support/appStart";
import { devSessionKeys } from "../support/devKeys";
import { emulatorClient } from "../support/emulatorClient";
import { expectNoSecrets } from "../support/expectations";
import { DEVICE_CREDENTIAL_COOKIE, testDeviceCookieValue } from "../support/testDevice";
import type { EnginePage } from "./enginePage";

// Helpers for the browser journeys: the emulator's developer endpoints, an app that starts the authorization and
// catches its redirect (one `openApp` for a Playwright context and for any engine's tab), the app's login as a real
// OIDC client, and the "nothing secret reaches the page" check.

/** The emulator's developer endpoints over HTTP, through the previewed site. */
export function emulator(baseUrl: string) {
  return emulatorClient((path, init) => fetch(`${baseUrl}${path}`, { ...init, redirect: "manual" }));
}

export interface App {
  serviceId: string;
  clientId: string;
  startUrl: string;
  redirectUri: string;
  codeVerifier: string;
  /** Resolves with the URL the app receives at its redirect URI (asked for once it is awaited). */
  received: PromiseLike<URL>;
}

/** A Playwright context (its pages are watched) or an engine's tab (its `reached`). */
type AppWebView = BrowserContext | EnginePage;
const isEnginePage = (on: AppWebView): on is EnginePage => "reached" in on;

/**
 * A brand's app opening the site in its webview: the app's PKCE, and how the app's callback is seen. It does not
 * navigate: the caller opens `startUrl`.
 */
export async function openApp(
  on: AppWebView,
  baseUrl: string,
  serviceId: string,
  clientId: string,
  view: View = "signIn",
  extra: Partial<AppAuthQuery> = {},
): Promise<App> {
  const start = await appStart({ serviceId, clientId }, view, extra);
  const app = {
    serviceId,
    clientId,
    startUrl: `${baseUrl}${start.path}`,
    redirectUri: start.appRedirect,
    codeVerifier: start.verifier,
  };
  if (isEnginePage(on)) {
    // Watched from now on; the wait starts once the callback is awaited, and fails if it never comes.
    const callback = on.watchFor(start.appRedirect);
    let asked: Promise<URL> | undefined;
    const received: PromiseLike<URL> = {
      // biome-ignore lint/suspicious/noThenProperty: a lazy promise, started by the first await.
      then: (onFulfilled, onRejected) => {
        asked ??= callback();
        return asked.then(onFulfilled, onRejected);
      },
    };
    return { ...app, received };
  }
  let resolve!: (url: URL) => void;
  const received = new Promise<URL>((r) => (resolve = r));
  const appOrigin = `https://app.${serviceId}.example`;
  // What the app receives is the first request to it. A redirect there is seen only as a request: Chromium's headless
  // shell routes no redirected request, and fails it as an unknown host after the request event.
  on.on("request", (request) => {
    if (request.url().startsWith(`${appOrigin}/`)) resolve(new URL(request.url()));
  });
  // A link straight to the app opens its page.
  await on.route(`${appOrigin}/**`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>app</title><p>app</p>" }),
  );
  return { ...app, received };
}

/** The site runs on local http in the tests. */
export const insecureRequests = { [oauth.allowInsecureRequests]: true } as const;

/**
 * The app as a real OIDC client nobody here wrote (oauth4webapi): the site's discovery document, and the token request
 * for the code the app received, made at the site's /oauth2/token proxy with the app's PKCE verifier.
 */
export async function oidcApp(baseUrl: string, clientId: string) {
  const issuer = new URL(baseUrl);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...insecureRequests, algorithm: "oidc" }),
  );
  const client: oauth.Client = { client_id: clientId };
  const grant = (app: App, callback: URL) =>
    oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      oauth.validateAuthResponse(as, client, callback, APP_STATE),
      app.redirectUri,
      app.codeVerifier,
      insecureRequests,
    );
  return { as, client, grant };
}

/**
 * What the app's login achieved, as a real OIDC client sees it: the code the app received (at its redirect URI, with
 * its state) exchanged at the site's token endpoint, and the id_token validated by oauth4webapi.
 */
export async function appLogin(
  app: App,
  baseUrl: string,
): Promise<{ acr?: string; amr?: string[]; auth_time?: number; sub: string }> {
  const callback = await app.received;
  expect(`${callback.origin}${callback.pathname}`).toBe(app.redirectUri);
  expect(callback.searchParams.get("state")).toBe(APP_STATE);
  const { as, client, grant } = await oidcApp(baseUrl, app.clientId);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await grant(app, callback), {
    requireIdToken: true,
  });
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  if (!claims) throw new Error("the token response has no id_token");
  return claims as { acr?: string; amr?: string[]; auth_time?: number; sub: string };
}

/** What each way of signing in claims (docs/passkeys.md, "What a login claims"): the id_token's `acr` and `amr`. */
export const LOGINS = {
  password: { acr: "pwd", amr: ["pwd"] },
  totp: { acr: "mfa", amr: ["pwd", "otp", "mfa"] },
  sms: { acr: "mfa", amr: ["pwd", "sms", "mfa"] },
  passkey: { acr: "phr", amr: ["pop", "mfa"] },
};
export type Login = (typeof LOGINS)[keyof typeof LOGINS];

/** The time in seconds, as the id_token's `auth_time`. */
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Validated id_token claims say what the login achieved, and that it happened after `startedAt` (seconds, taken
 * before the sign-in; 5 s of clock slack either way).
 */
export function expectLoginClaims(
  claims: { acr?: unknown; amr?: unknown; auth_time?: number } | undefined,
  login: Login,
  startedAt: number,
): void {
  expect({ acr: claims?.acr, amr: claims?.amr }).toEqual(login);
  expect(claims?.auth_time).toBeGreaterThanOrEqual(startedAt - 5);
  expect(claims?.auth_time).toBeLessThanOrEqual(nowSeconds() + 5);
}

/** The app got its code and, as a real OIDC client, exchanged it: its id_token claims `login`, made just now. */
export async function expectAppLogin(app: App, baseUrl: string, login: Login, startedAt: number): Promise<void> {
  expectLoginClaims(await appLogin(app, baseUrl), login, startedAt);
}

/** The query parameters whose values are secrets when they cross the network (architecture §3). */
const NETWORK_SECRETS = ["login_challenge", "consent_challenge", "login_verifier", "consent_verifier", "code"];

/** Every secret-looking value in the URLs of `requests`: challenges, verifiers and codes of 16 characters or more. */
export function secretsIn(requests: Iterable<{ url: string }>): Set<string> {
  const secrets = new Set<string>();
  for (const request of requests) {
    const url = new URL(request.url);
    for (const name of NETWORK_SECRETS) {
      const value = url.searchParams.get(name);
      if (value && value.length >= 16) secrets.add(value);
    }
  }
  return secrets;
}

/**
 * architecture §3: no token, verifier, challenge or session in script-readable cookies, storage or HTML of the site's
 * page the tab shows. `secrets` are values that must not be there (at least one, none missing: a check against
 * nothing proves nothing). A tab that is not at `siteOrigin` fails: there is nothing of the site's to check.
 */
export async function expectNothingSecretInPage(
  page: EnginePage,
  siteOrigin: string,
  secrets: ReadonlyArray<string | undefined>,
): Promise<void> {
  const url = await page.url();
  expect(new URL(url).origin, `the secret check needs a page of the site, not ${url}`).toBe(siteOrigin);
  const exposed = await page.exec<{ cookie: string; local: string; session: string; html: string }>(`return {
    cookie: document.cookie,
    local: JSON.stringify({ ...localStorage }),
    session: JSON.stringify({ ...sessionStorage }),
    html: document.documentElement.outerHTML,
  };`);
  // The one cookie a script may read is the marker that the island script runs ("1", islands/scriptMarker.ts).
  const readable = exposed.cookie.split("; ").filter((pair) => pair && pair !== `__Host-${SCRIPT_MARKER_COOKIE}=1`);
  expect(readable).toEqual([]);
  expect(exposed.html.length, "the page has no document").toBeGreaterThan(100);
  for (const [where, text] of Object.entries(exposed)) {
    expect(text, `${where} holds a JWT`).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/);
    expectNoSecrets(text, secrets);
  }
}

/**
 * A Chromium context for a journey, as the test device (`device: "test"`, test/support/testDevice.ts: the seeded
 * users know it, so no sign-in stops at the new-device confirmation) unless `device: "new"`.
 */
export async function newContext(
  browser: Browser,
  javaScriptEnabled: boolean,
  { device = "test" }: { device?: "test" | "new" } = {},
): Promise<BrowserContext> {
  const create = () =>
    browser.newContext({ javaScriptEnabled, locale: "ja-JP", viewport: { width: 414, height: 896 } });
  return device === "test" ? asTestDevice(browser, create) : create();
}

let testDeviceValue: Promise<string> | undefined;
/** The test device's sealed credential, sealed once with the previews' (the dev environment's) keys. */
export function testDeviceCredential(): Promise<string> {
  testDeviceValue ??= testDeviceCookieValue(devSessionKeys());
  return testDeviceValue;
}

/**
 * The context `create` makes, holding the test device's credential for the previews' hosts (Chromium's HTTP one and the
 * local HTTPS one) before its first page. Playwright's addCookies always sends a Domain, which a `__Host-` cookie
 * refuses, so the browser's own CDP call plants it, in the one context the browser did not have before.
 */
export async function asTestDevice(browser: Browser, create: () => Promise<BrowserContext>): Promise<BrowserContext> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const before = new Set((await cdp.send("Target.getBrowserContexts")).browserContextIds);
    const context = await create();
    const made = (await cdp.send("Target.getBrowserContexts")).browserContextIds.filter((id) => !before.has(id));
    if (made.length !== 1) throw new Error(`asTestDevice: ${made.length} new browser contexts, not one`);
    const value = await testDeviceCredential();
    const cookies = ["http://127.0.0.1/", "https://localhost/"].map((url) => ({
      name: DEVICE_CREDENTIAL_COOKIE,
      value,
      url,
      path: "/",
      secure: true,
      httpOnly: true,
      sameSite: "Lax" as const,
    }));
    await cdp.send("Storage.setCookies", { browserContextId: made[0], cookies });
    return context;
  } finally {
    await cdp.detach();
  }
}

/** Presses a form's button by its label and waits for the page the POST leads to. */
export async function submit(page: Page, label: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: label, exact: true }).click()]);
}
