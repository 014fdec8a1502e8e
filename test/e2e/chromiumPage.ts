import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
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

/** A tab of a fresh browser context (its own cookie jar and storage), JavaScript on or off. */
export async function chromiumPage(browser: Browser, javaScript: boolean): Promise<EnginePage> {
  // Without the test device: the journeys plant it themselves (setCookies), as in every engine.
  const context = await newContext(browser, javaScript, { device: "new" });
  // A step that cannot happen fails within the test's time, naming itself.
  context.setDefaultTimeout(15_000);
  // A link straight to an app or a brand's site opens a stand-in page; a redirect there is seen only as a request
  // (the headless shell routes no redirected request).
  await context.route(/^https:\/\/[^/]+\.example\//, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: OUTSIDE }),
  );
  const requested: SeenRequest[] = [];
  context.on("request", (request) => void requested.push({ url: request.url(), method: request.method() }));
  return tab(context, await context.newPage(), javaScript, requested, true);
}

function tab(
  context: BrowserContext,
  firstPage: Page,
  javaScript: boolean,
  contextRequests: SeenRequest[],
  owner: boolean,
): EnginePage {
  const requests: SeenRequest[] = [];
  const responses: SeenResponse[] = [];
  const consoleMessages: string[] = [];
  const pageErrors: string[] = [];
  /** Whether the page's document went to a host outside the site (an app, a brand's top). */
  let offSite = false;
  const watch = (page: Page) => {
    page.on("request", (request) => {
      requests.push({ url: request.url(), method: request.method() });
      if (
        request.isNavigationRequest() &&
        request.frame() === page.mainFrame() &&
        /\.example$/.test(new URL(request.url()).hostname)
      )
        offSite = true;
    });
    page.on("response", (response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame())
        responses.push({ url: response.url(), status: response.status(), headers: response.headers() });
    });
    page.on("console", (message) => void consoleMessages.push(`${message.type()}: ${message.text()}`));
    page.on("pageerror", (error) => void pageErrors.push(String(error)));
    return page;
  };
  let page = watch(firstPage);

  const locate = (target: Target): Locator =>
    page.locator(typeof target === "string" ? target : `xpath=${xpathOf(target)}`).filter({ visible: true });
  const first = async (target: Target): Promise<Locator> => {
    const found = locate(target);
    if ((await found.count()) === 0)
      throw new Error(`nothing visible matches ${JSON.stringify(target)} at ${page.url()}`);
    return found.first();
  };
  return {
    engine: "Chromium",
    javaScript,
    go: async (url) => {
      // A page that redirects off the site (sign-out to the brand's top) is done once the browser asks for the
      // other site: the headless shell fails the redirected request, which is not the site's doing.
      const site = new URL(url).origin;
      const from = contextRequests.length;
      const leftSite = () => contextRequests.slice(from).some((request) => new URL(request.url).origin !== site);
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
    resize: (width, height) => page.setViewportSize({ width, height }),
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
    newTab: async () => tab(context, await context.newPage(), javaScript, contextRequests, false),
    close: async () => {
      await (owner ? context.close() : page.close());
    },
    requests: () => [...requests],
    responses: () => [...responses],
    consoleMessages: () => [...consoleMessages],
    pageErrors: () => [...pageErrors],
    // Playwright's click waits for a navigation it starts to commit, not to load.
    seesStreaming: true,
  };
}
