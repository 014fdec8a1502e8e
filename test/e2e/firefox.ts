import puppeteer, { type Browser, type BrowserContext, type HTTPRequest, type Page } from "puppeteer-core";
import { withoutPhraseBreaks } from "../support/phraseBreaks";
import { ensureDebianPackages } from "./debian";
import {
  CLEAR_STORAGE,
  type EnginePage,
  requestWaits,
  type SeenRequest,
  type SeenResponse,
  type Target,
  xpathOf,
} from "./enginePage";

// Firefox ESR for the browser tests: Debian's firefox-esr driven over WebDriver BiDi by puppeteer-core (24.x: its
// engines allow Node 20). JavaScript off is the `javascript.enabled` pref for the whole browser, under which
// puppeteer's element clicks never settle: clicks go by coordinates. BiDi sees the network and the console, so a
// Firefox tab has the optional capabilities of EnginePage (its requests, its documents' responses, its console).

const FIREFOX = process.env.FIREFOX_PATH ?? "/usr/bin/firefox-esr";

/** Installs Debian's firefox-esr when missing. */
export function ensureFirefox(): void {
  ensureDebianPackages("Firefox ESR", { [FIREFOX]: "firefox-esr" });
}

/** A headless Firefox that takes the local HTTPS certificate; JavaScript on or off for the whole browser. */
export function launchFirefox({ javaScript = true } = {}): Promise<Browser> {
  ensureFirefox();
  return puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: true,
    acceptInsecureCerts: true,
    defaultViewport: { width: 414, height: 896 },
    extraPrefsFirefox: {
      "javascript.enabled": javaScript,
      "intl.accept_languages": "ja-JP",
      // One content process for the whole browser, none started ahead: every page here is of one site, so site
      // isolation (Fission) and a spare process only cost CPU, about a fifth of firefox.test.ts's (docs/testing.md).
      // What a page sees (DOM, script, cookies, layout) is the same; Firefox for Android runs without Fission too.
      "fission.autostart": false,
      "dom.ipc.processCount": 1,
      "dom.ipc.processPrelaunch.enabled": false,
    },
  });
}

/** A tab of a fresh browser context (its own cookie jar) as an EnginePage; errors the page throws are kept. */
export async function firefoxPage(browser: Browser, javaScript: boolean): Promise<EnginePage> {
  const context = await browser.createBrowserContext();
  return tab(context, await context.newPage(), javaScript, true);
}

function tab(context: BrowserContext, firstPage: Page, javaScript: boolean, owner: boolean): EnginePage {
  const requests: SeenRequest[] = [];
  const responses: SeenResponse[] = [];
  const consoleMessages: string[] = [];
  const errors: string[] = [];
  /** Whether the page's document went to a host outside the site (an app, a brand's top), which does not resolve. */
  let offSite = false;
  const watch = (page: Page) => {
    page.on("request", (request) => {
      requests.push({ url: request.url(), method: request.method() });
      if (request.isNavigationRequest() && /\.example$/.test(new URL(request.url()).hostname)) offSite = true;
    });
    page.on("response", (response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame())
        responses.push({ url: response.url(), status: response.status(), headers: response.headers() });
    });
    page.on("console", (message) => void consoleMessages.push(`${message.type()}: ${message.text()}`));
    page.on("pageerror", (error) => void errors.push(String(error)));
    return page;
  };
  let page = watch(firstPage);
  // With JavaScript off `page.$$` never settles (`page.$` and evaluation do): the page's visible matches are found by
  // a script of the driver's own, which marks the first for `page.$`.
  const displayed = (target: Target) =>
    page.evaluate(
      (css: string | null, xpath: string | null) => {
        const found: Element[] = [];
        if (css) found.push(...document.querySelectorAll(css));
        else {
          const result = document.evaluate(xpath ?? "", document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
          for (let index = 0; index < result.snapshotLength; index++) found.push(result.snapshotItem(index) as Element);
        }
        const shown = found.filter((element) => element.getClientRects().length > 0);
        for (const marked of document.querySelectorAll("[data-e2e-target]")) marked.removeAttribute("data-e2e-target");
        shown[0]?.setAttribute("data-e2e-target", "");
        return shown.length;
      },
      typeof target === "string" ? target : null,
      typeof target === "string" ? null : xpathOf(target),
    );
  const first = async (target: Target) => {
    const handle = (await displayed(target)) > 0 ? await page.$("[data-e2e-target]") : null;
    if (!handle) throw new Error(`nothing visible matches ${JSON.stringify(target)} at ${page.url()}`);
    return handle;
  };
  const checkErrors = () => {
    if (errors.length) throw new Error(`the page threw: ${errors.join("; ")}`);
  };
  return {
    engine: "Firefox ESR",
    javaScript,
    go: async (url) => {
      if (offSite) {
        // A navigation to a host that does not resolve leaves the page in a state whose late failure may fail or
        // stall the next navigation: the tab goes on in a new page of the same context (the same cookies and
        // storage), as a user's next visit.
        const left = page;
        page = watch(await context.newPage());
        offSite = false;
        await left.close();
      }
      // A page that redirects off the site (sign-out to the brand's top) ends at a host that does not resolve here:
      // its navigation never loads, so it is done once the browser asks for the other site.
      const site = new URL(url).origin;
      let left!: () => void;
      const leaves = new Promise<void>((resolve) => (left = resolve));
      const leaving = (request: HTTPRequest) => {
        if (request.isNavigationRequest() && new URL(request.url()).origin !== site) left();
      };
      const current = page;
      current.on("request", leaving);
      let redirectedAway = false;
      const loaded = current.goto(url).then(
        () => undefined,
        (error: Error) => {
          if (!redirectedAway) throw error;
        },
      );
      await Promise.race([loaded, leaves.then(() => (redirectedAway = true))]);
      current.off("request", leaving);
      checkErrors();
    },
    url: async () => page.url(),
    fill: async (target, text) => {
      const handle = await first(target);
      // A BiDi key action per character costs Firefox some 30 ms, a second for an address. With JavaScript off no
      // page script can see the keys: the field gets the value typing would leave. With it on, the field gets all but
      // the last character, and that one is typed: the islands hear a real key, and an input event with the whole
      // value, as after Playwright's `fill` in Chromium.
      const last = javaScript ? ([...text].at(-1) ?? "") : "";
      await handle.evaluate(
        (input, value) => {
          (input as HTMLInputElement).value = value;
        },
        text.slice(0, text.length - last.length),
      );
      if (last) await handle.type(last);
    },
    click: async (target) => {
      checkErrors();
      const handle = await first(target);
      await handle.evaluate((element) => element.scrollIntoView({ block: "center", behavior: "instant" }));
      const box = await handle.boundingBox();
      if (!box) throw new Error(`${JSON.stringify(target)} has no box`);
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    },
    press: async (key) => {
      checkErrors();
      // puppeteer names the space bar by its character.
      if (key !== "Shift+Tab") return page.keyboard.press(key === "Space" ? " " : key);
      await page.keyboard.down("Shift");
      await page.keyboard.press("Tab");
      await page.keyboard.up("Shift");
    },
    text: async (target = "main") =>
      withoutPhraseBreaks(await (await first(target)).evaluate((element) => (element as HTMLElement).innerText)),
    visible: displayed,
    resize: (width, height) => page.setViewport({ width, height }),
    exec: async <T>(body: string) => page.evaluate(`(() => { ${body} })()`) as Promise<T>,
    cookies: async () => (await context.cookies()) as never,
    forgetSite: async () => {
      await context.deleteCookie(...(await context.cookies()));
      await page.evaluate(`(() => { ${CLEAR_STORAGE} })()`);
    },
    setCookies: async (origin, cookies) => {
      const { hostname } = new URL(origin);
      await context.setCookie(
        ...cookies.map(({ name, value }) => ({
          name,
          value,
          domain: hostname,
          path: "/",
          secure: true,
          httpOnly: true,
        })),
      );
    },
    // An element's own screenshot waits on an in-page observer that never settles with JavaScript off: its box is
    // cut out of the page's instead.
    screenshot: async (target) => {
      const clip = target ? await (await first(target)).boundingBox() : null;
      return Buffer.from(await page.screenshot(clip ? { clip } : {}));
    },
    ...requestWaits(requests),
    newTab: async () => tab(context, await context.newPage(), javaScript, false),
    close: async () => {
      await (owner ? context.close() : page.close());
      checkErrors();
    },
    requests: () => [...requests],
    responses: () => [...responses],
    consoleMessages: () => [...consoleMessages],
    pageErrors: () => [...errors],
    // Clicks go by coordinates: nothing waits for the navigation they start.
    seesStreaming: true,
  };
}
