import type { Browser, BrowserContext, ConsoleMessage, Locator, Page, Request, Response } from "playwright-core";
import { withoutPhraseBreaks } from "../support/phraseBreaks";
import {
  CLEAR_STORAGE,
  type EnginePage,
  requestWaits,
  type SeenRequest,
  type SeenResponse,
  type Target,
  xpathOf,
} from "./enginePage";
import { newContext } from "./journeys";

// Chromium (Debian's headless shell, browser.ts) as an EnginePage, through Playwright over CDP: the engine
// journeys (engineJourneys.ts) run here as in every other engine, JavaScript on and off. CDP sees the network and
// the console, so a Chromium tab has every optional capability: the requests it made, its documents' responses,
// its console messages and uncaught errors.

/** What a host outside the site answers (the app's redirect URI, the brand's top): they do not resolve here. */
const OUTSIDE = "<!doctype html><title>outside</title><p>outside</p>";

/** The site's document that costs least to load (a static file), where a kept tab is cleaned between journeys. */
const SITE_FILE = "/blocked-tab.svg";

/** A context and its tab, kept for the next journey of the same browser and JavaScript setting once cleaned. */
interface Kept {
  context: BrowserContext;
  page: Page;
}
const keptTabs = new WeakMap<Browser, Map<boolean, Kept>>();

/**
 * A tab with no cookie and no storage of the site, JavaScript on or off: the tab an earlier journey of this browser
 * left, cleaned (as WebKit's, webkit.ts), else one of a new browser context. A new context and tab cost Chromium about
 * a third of a CPU-second and start with an empty HTTP cache (docs/benchmarks.md).
 */
export async function chromiumPage(browser: Browser, javaScript: boolean): Promise<EnginePage> {
  const kept = keptTabs.get(browser)?.get(javaScript);
  // Taken while in use: a second tab asked for meanwhile gets a context of its own.
  keptTabs.get(browser)?.delete(javaScript);
  const context = kept?.context ?? (await freshContext(browser, javaScript));
  const page = kept?.page ?? (await context.newPage());
  const requested: SeenRequest[] = [];
  const seen = (request: Request) => void requested.push({ url: request.url(), method: request.method() });
  context.on("request", seen);
  const keep = (last: Page) => {
    context.off("request", seen);
    const forBrowser = keptTabs.get(browser) ?? new Map<boolean, Kept>();
    keptTabs.set(browser, forBrowser);
    forBrowser.set(javaScript, { context, page: last });
  };
  return tab(context, page, javaScript, requested, { keep });
}

/** A browser context of its own (its cookie jar, storage and HTTP cache), JavaScript on or off. */
async function freshContext(browser: Browser, javaScript: boolean): Promise<BrowserContext> {
  // Without the test device: the journeys plant it themselves (setCookies), as in every engine.
  const context = await newContext(browser, javaScript, { device: "new" });
  // A step that cannot happen fails within the test's time, naming itself.
  context.setDefaultTimeout(15_000);
  // A link straight to an app or a brand's site opens a stand-in page; a redirect there is seen only as a request
  // (the headless shell routes no redirected request).
  await context.route(/^https:\/\/[^/]+\.example\//, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: OUTSIDE }),
  );
  return context;
}

function tab(
  context: BrowserContext,
  firstPage: Page,
  javaScript: boolean,
  contextRequests: SeenRequest[],
  /** The tab's owner (the journey's first tab) gives the cleaned tab back to be kept; another tab just closes. */
  owner?: { keep(page: Page): void },
): EnginePage {
  const requests: SeenRequest[] = [];
  const responses: SeenResponse[] = [];
  const consoleMessages: string[] = [];
  const pageErrors: string[] = [];
  /** Whether the page's document went to a host outside the site (an app, a brand's top). */
  let offSite = false;
  /** What stops this tab's listeners: a kept page outlives the journey that watched it. */
  const unwatch: (() => void)[] = [];
  const watch = (page: Page) => {
    const onRequest = (request: Request) => {
      requests.push({ url: request.url(), method: request.method() });
      if (
        request.isNavigationRequest() &&
        request.frame() === page.mainFrame() &&
        /\.example$/.test(new URL(request.url()).hostname)
      )
        offSite = true;
    };
    const onResponse = (response: Response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame())
        responses.push({ url: response.url(), status: response.status(), headers: response.headers() });
    };
    const onConsole = (message: ConsoleMessage) => void consoleMessages.push(`${message.type()}: ${message.text()}`);
    const onPageError = (error: Error) => void pageErrors.push(String(error));
    page.on("request", onRequest);
    page.on("response", onResponse);
    page.on("console", onConsole);
    page.on("pageerror", onPageError);
    unwatch.push(() => {
      page.off("request", onRequest);
      page.off("response", onResponse);
      page.off("console", onConsole);
      page.off("pageerror", onPageError);
    });
    return page;
  };
  /** The site the tab last went to, and whether its viewport was changed: what a kept tab's clean-up undoes. */
  let site: string | undefined;
  let resized = false;
  let page = watch(firstPage);

  const locate = (target: Target): Locator =>
    page.locator(typeof target === "string" ? target : `xpath=${xpathOf(target)}`).filter({ visible: true });
  const first = async (target: Target): Promise<Locator> => {
    const found = locate(target);
    if ((await found.count()) === 0)
      throw new Error(`nothing visible matches ${JSON.stringify(target)} at ${page.url()}`);
    return found.first();
  };
  const enginePage: EnginePage = {
    engine: "Chromium",
    javaScript,
    go: async (url) => {
      // A page that redirects off the site (sign-out to the brand's top) is done once the browser asks for the
      // other site: the headless shell fails the redirected request, which is not the site's doing.
      const origin = new URL(url).origin;
      // The site's origin, not an app's stand-in page.
      if (!/\.example$/.test(new URL(url).hostname)) site = origin;
      const from = contextRequests.length;
      const leftSite = () => contextRequests.slice(from).some((request) => new URL(request.url).origin !== origin);
      if (offSite) {
        // A redirect off the site leaves the shell's error page, whose late navigation would interrupt this one: the
        // tab goes on in a new page of the same context (the same cookies and storage), as a user's next visit.
        const left = page;
        page = watch(await context.newPage());
        offSite = false;
        await left.close();
      }
      await page.goto(url).catch((error: Error) => {
        if (!leftSite()) throw error;
      });
    },
    url: async () => page.url(),
    fill: async (target, text) => (await first(target)).fill(text),
    click: async (target) => (await first(target)).click(),
    press: async (key) => page.keyboard.press(key),
    text: async (target = "main") => withoutPhraseBreaks(await (await first(target)).innerText()),
    visible: async (target) => locate(target).count(),
    resize: (width, height) => {
      resized = true;
      return page.setViewportSize({ width, height });
    },
    exec: async <T>(body: string) => page.evaluate(`(() => { ${body} })()`) as Promise<T>,
    cookies: async () => context.cookies(),
    forgetSite: async () => {
      await context.clearCookies();
      await page.evaluate(`(() => { ${CLEAR_STORAGE} })()`);
    },
    // Playwright's addCookies always sends a Domain, which `__Host-` cookies refuse; CDP's own call given a URL and
    // no domain makes host-only cookies, kept in the context's jar with those the site sets (a Cookie request header
    // would be replaced by the jar's).
    setCookies: async (origin, cookies) => {
      const cdp = await context.newCDPSession(page);
      try {
        for (const { name, value } of cookies) {
          const cookie = { name, value, url: `${origin}/`, path: "/", secure: true, httpOnly: true };
          const { success } = await cdp.send("Network.setCookie", { ...cookie, sameSite: "Lax" });
          if (!success) throw new Error(`Chromium refused the cookie ${name} for ${origin}`);
        }
      } finally {
        await cdp.detach();
      }
    },
    screenshot: async (target) => (target ? (await first(target)).screenshot() : page.screenshot()),
    ...requestWaits(contextRequests),
    newTab: async () => tab(context, await context.newPage(), javaScript, contextRequests),
    async close() {
      for (const stop of unwatch) stop();
      if (!owner) return page.close();
      // Kept for the next journey once nothing of this one is left: no other tab, no cookie, no storage of the
      // site (the tab on a static file of it, whose storage is the site's), the phone's viewport. A tab that cannot
      // be cleaned goes with its context.
      try {
        for (const other of context.pages()) if (other !== page) await other.close();
        if (site) await enginePage.go(`${site}${SITE_FILE}`);
        for (const stop of unwatch) stop();
        await context.clearCookies();
        if (site) await page.evaluate(`(() => { ${CLEAR_STORAGE} })()`);
        const left = await context.cookies();
        if (left.length) throw new Error(`${left.length} cookies left`);
        if (resized) await page.setViewportSize({ width: 414, height: 896 });
      } catch {
        await context.close();
        return;
      }
      owner.keep(page);
    },
    requests: () => [...requests],
    responses: () => [...responses],
    consoleMessages: () => [...consoleMessages],
    pageErrors: () => [...pageErrors],
    // Playwright's click waits for a navigation it starts to commit, not to load.
    seesStreaming: true,
  };
  return enginePage;
}
