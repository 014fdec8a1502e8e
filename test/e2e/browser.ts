import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, expect, inject } from "vitest";
import type { SealedCookieName, SealedState } from "../../worker/session/cookies";
import { devSessionKeys } from "../support/devKeys";
import { sealedCookie as sealed } from "../support/forms";
import { CHROMIUM_ARGS, HEADLESS_SHELL_PATH } from "./chromium";

/**
 * The preview server of this test file: globalSetup starts one per vitest worker, and a worker's files use the one
 * of its VITEST_POOL_ID, so that two files running at once never share an emulator or the rate limiter's counts.
 */
export function siteUrl(): string {
  const urls = inject("baseUrls");
  const slot = Number(process.env.VITEST_POOL_ID ?? "1");
  const url = urls[slot - 1];
  if (url === undefined) throw new Error(`no preview server for vitest worker ${slot} (${urls.length} started)`);
  return url;
}

/** The build over local HTTPS (workerd's TLS), for Firefox's file alone. */
export function httpsSiteUrl(): string {
  const url = inject("httpsBaseUrl");
  if (!url) throw new Error("no HTTPS site was started");
  return url;
}

/** `vite preview --https`, as `npm run dev:https` serves the site (HTTP/2, the locally made certificate). */
export function previewHttpsUrl(): string {
  const url = inject("previewHttpsUrl");
  if (!url) throw new Error("no HTTPS preview server was started");
  return url;
}

/** A call to the HTTPS preview from Node (the emulator's developer endpoints), whose certificate was made here. */
export async function withLocalCertificate<T>(call: () => Promise<T>): Promise<T> {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = "0";
  try {
    return await call();
  } finally {
    delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  }
}

/**
 * What every Chromium context asks of the site besides its cookies: pages uncompressed. The sites are the build in
 * workerd alone (workerdSite.ts), which compresses what a browser accepts compressed, as the edge does, and holds a
 * streamed page in its compressor until the page ends; Chromium's journeys watch a page stream (the spinner before
 * a late TOTP secret, engineJourneys.ts). Firefox and the WebKits take their pages compressed.
 */
export const CHROMIUM_HEADERS: Record<string, string> = { "Accept-Encoding": "identity" };

async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: HEADLESS_SHELL_PATH, args: CHROMIUM_ARGS, headless: true });
  // Every context of the file's browser (newPage makes one too) sends them, whatever else it is given.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = (options = {}) =>
    newContext({ ...options, extraHTTPHeaders: { ...CHROMIUM_HEADERS, ...options.extraHTTPHeaders } });
  return browser;
}

/**
 * One Chromium for the test file that calls it: launched before its tests and closed after them. Given the
 * emulator, it also resets it (users, mail, faults, clock) before each test. Answers the running browser.
 *
 * @example const browser = chromiumForFile({ emulator: idp }); … await browser().newContext()
 */
export function chromiumForFile({ emulator }: { emulator?: { reset(): Promise<unknown> } } = {}): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  if (emulator)
    beforeEach(async () => {
      await emulator.reset();
    });
  return () => {
    if (!browser) throw new Error("chromiumForFile: the browser runs only while the file's tests do");
    return browser;
  };
}

/** A Cookie header value holding one sealed state, as the worker itself would have written it. */
export function sealedCookie<N extends SealedCookieName>(which: N, value: SealedState<N>): Promise<string> {
  return sealed(devSessionKeys(), which, value);
}

/**
 * Gives a fresh context cookie state the worker would have set earlier in a journey. CDP refuses to plant
 * `__Host-` cookies (it always sends a Domain), so they travel as a request header instead.
 */
export async function withCookies(context: BrowserContext, cookies: string[]): Promise<void> {
  // Replaces what an earlier call set: a reused context sends none of an earlier screen's state.
  await context.setExtraHTTPHeaders({ ...CHROMIUM_HEADERS, ...(cookies.length ? { Cookie: cookies.join("; ") } : {}) });
}

/**
 * Waits until every island of the page has hydrated: islands/client.tsx marks an island's host `data-hydrated` once
 * its first render committed and its effects ran. A page without islands is ready at once; an island that fails to
 * load never is, and the wait fails the test.
 */
export async function islandsHydrated(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll("[data-island]")).every((host) => host.hasAttribute("data-hydrated")),
  );
}

/**
 * Opens a URL in the page and answers the scripts it requested on the way. The page must have rendered a screen of
 * the site (a document, no server error, one heading with text): no script on a blank or failed page proves nothing.
 */
export async function scriptsLoadedBy(page: Page, url: string): Promise<string[]> {
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(request.url());
  });
  const response = await page.goto(url);
  expect(response, `${url} answered no document`).not.toBeNull();
  expect(response?.status(), `${url} failed`).toBeLessThan(500);
  expect(await page.locator("h1").count(), `${url} rendered no screen`).toBe(1);
  expect((await page.locator("h1").textContent())?.trim(), `${url} rendered an empty heading`).toBeTruthy();
  return scripts;
}

/**
 * Watches the pages of a context for Content-Security-Policy violations, two ways: the document's
 * `securitypolicyviolation` events, heard by a listener an init script installs before any of the page's own scripts
 * runs, and Chromium's console report ("Refused to …"), a second signal. `events(page)` answers the violations of the
 * page's current document; `reports` every console report of the pages opened after the call, which a test adds as it opens
 * them (`watch(page)`).
 */
export async function cspViolations(context: BrowserContext) {
  await context.addInitScript(() => {
    const seen: string[] = [];
    Object.defineProperty(window, "__cspViolations", { value: seen });
    document.addEventListener(
      "securitypolicyviolation",
      (event) => seen.push(`${event.effectiveDirective} blocked ${event.blockedURI || "(inline)"}`),
      true,
    );
  });
  const reports: string[] = [];
  return {
    reports,
    watch(page: Page): Page {
      page.on("console", (message) => {
        if (/Content.Security.Policy|Refused to/i.test(message.text())) reports.push(message.text());
      });
      return page;
    },
    async events(page: Page): Promise<string[]> {
      const seen = await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations);
      // No list means the listener was never installed: then "no violation" would prove nothing.
      if (!seen) throw new Error("the CSP listener is not in this page");
      return seen;
    },
  };
}
