import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, {
  type Browser,
  type BrowserContext,
  type ConsoleMessage,
  type HTTPRequest,
  type HTTPResponse,
  type Page,
} from "puppeteer-core";
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

/**
 * The browser's own toolbars (tabs, address bar) hidden by a user stylesheet of the profile: headless Firefox still
 * lays them out and paints them, the tab's loading indicator at every frame of a page load, about a sixth of the CPU
 * a page load costs it (docs/benchmarks.md). A stylesheet of the browser's window, never of a page: the tab's
 * viewport is set by the driver, its size and the page's CSS the same.
 */
const NO_TOOLBARS = "#navigator-toolbox { display: none !important; }\n";

/** A headless Firefox that takes the local HTTPS certificate; JavaScript on or off for the whole browser. */
export async function launchFirefox({ javaScript = true } = {}): Promise<Browser> {
  ensureFirefox();
  // A profile of our own for the stylesheet: puppeteer writes its prefs into it and leaves it, so it goes once the
  // browser's process has ended (Firefox writes to it until then).
  const profile = mkdtempSync(join(tmpdir(), "firefox-profile-"));
  mkdirSync(join(profile, "chrome"));
  writeFileSync(join(profile, "chrome", "userChrome.css"), NO_TOOLBARS);
  const browser = await puppeteer
    .launch({
      userDataDir: profile,
      browser: "firefox",
      executablePath: FIREFOX,
      headless: true,
      acceptInsecureCerts: true,
      defaultViewport: { width: 414, height: 896 },
      extraPrefsFirefox: {
        "javascript.enabled": javaScript,
        "intl.accept_languages": "ja-JP",
        // One content process for the whole browser, none started ahead: every page here is of one site, so site
        // isolation (Fission) and a spare process only cost CPU, about a fifth of firefox.test.ts's as measured when it was chosen.
        // What a page sees (DOM, script, cookies, layout) is the same; Firefox for Android runs without Fission too.
        "fission.autostart": false,
        "dom.ipc.processCount": 1,
        "dom.ipc.processPrelaunch.enabled": false,
        // The profile's userChrome.css (NO_TOOLBARS) is read.
        "toolkit.legacyUserProfileCustomizations.stylesheets": true,
      },
    })
    .catch((error: unknown) => {
      rmSync(profile, { recursive: true, force: true });
      throw error;
    });
  browser.process()?.once("exit", () => rmSync(profile, { recursive: true, force: true }));
  return browser;
}

/** The site's document that costs least to load (a static file), where a kept tab is cleaned between journeys. */
const SITE_FILE = "/blocked-tab.svg";

/** A browser's context and tab, kept for its next journey once cleaned. */
const keptTabs = new WeakMap<Browser, { context: BrowserContext; page: Page }>();

/**
 * A tab with no cookie and no storage of the site as an EnginePage; errors the page throws are kept. It is the tab an
 * earlier journey of this browser left, cleaned (as WebKit's, webkit.ts), else one of a new browser context: a new
 * context and tab cost Firefox about half a CPU-second and start with an empty HTTP cache (docs/benchmarks.md).
 */
export async function firefoxPage(browser: Browser, javaScript: boolean): Promise<EnginePage> {
  const kept = keptTabs.get(browser);
  // Taken while in use: a second tab asked for meanwhile gets a context of its own.
  keptTabs.delete(browser);
  const context = kept?.context ?? (await browser.createBrowserContext());
  const page = kept?.page ?? (await context.newPage());
  return tab(context, page, javaScript, { keep: (last) => keptTabs.set(browser, { context, page: last }) });
}

/** What the driver's script does with the first visible match of a target (`onFirstShown`). */
type Step = "mark" | "text" | "click" | "fill" | "fill, then type";

function tab(
  context: BrowserContext,
  firstPage: Page,
  javaScript: boolean,
  /** The tab's owner (the journey's first tab) gives the cleaned tab back to be kept; another tab just closes. */
  owner?: { keep(page: Page): void },
): EnginePage {
  const requests: SeenRequest[] = [];
  const responses: SeenResponse[] = [];
  const consoleMessages: string[] = [];
  const errors: string[] = [];
  /** Whether the page's document went to a host outside the site (an app, a brand's top), which does not resolve. */
  let offSite = false;
  /** What stops this tab's listeners: a kept page outlives the journey that watched it. */
  const unwatch: (() => void)[] = [];
  const watch = (page: Page) => {
    const onRequest = (request: HTTPRequest) => {
      requests.push({ url: request.url(), method: request.method() });
      if (request.isNavigationRequest() && /\.example$/.test(new URL(request.url()).hostname)) offSite = true;
    };
    const onResponse = (response: HTTPResponse) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame())
        responses.push({ url: response.url(), status: response.status(), headers: response.headers() });
    };
    const onConsole = (message: ConsoleMessage) => void consoleMessages.push(`${message.type()}: ${message.text()}`);
    const onPageError = (error: unknown) => void errors.push(String(error));
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
  let lastSite: string | undefined;
  let resized = false;
  let page = watch(firstPage);
  // With JavaScript off `page.$$` never settles (`page.$` and evaluation do): the page's visible matches are found by
  // a script of the driver's own, which also does what the step needs with the first (one call instead of four or
  // five: BiDi calls cost Firefox and the test's Node), or marks it for `page.$`.
  const onFirstShown = <T>(target: Target, step: "count" | Step, value = "") =>
    page.evaluate(
      (css: string | null, xpath: string | null, step: string, value: string) => {
        const found: Element[] = [];
        if (css) found.push(...document.querySelectorAll(css));
        else {
          const result = document.evaluate(xpath ?? "", document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
          for (let index = 0; index < result.snapshotLength; index++) found.push(result.snapshotItem(index) as Element);
        }
        const shown = found.filter((element) => element.getClientRects().length > 0);
        const element = shown[0] as HTMLElement | undefined;
        if (step === "count") return shown.length;
        if (!element) return null;
        if (step === "mark") {
          for (const marked of document.querySelectorAll("[data-e2e-target]"))
            marked.removeAttribute("data-e2e-target");
          element.setAttribute("data-e2e-target", "");
          return true;
        }
        if (step === "text") return element.innerText;
        if (step === "click") {
          element.scrollIntoView({ block: "center", behavior: "instant" });
          const box = element.getBoundingClientRect();
          return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
        }
        // fill: the value typing would leave; the focus on the field where a last key is typed ("fill, then type").
        // enginePage.ts's SET_VALUE_AS_TYPED, which a page function cannot import: the value through the element's
        // class's setter and an input event, so that a hydrated field's state takes it. `element.value = value`
        // left that state as it was, and the field's next render before the last key put it back (a login ID posted
        // as its last character alone).
        Object.getOwnPropertyDescriptor(Object.getPrototypeOf(element), "value")?.set?.call(element, value);
        element.dispatchEvent(new Event("input", { bubbles: true }));
        if (step === "fill, then type") element.focus();
        return true;
      },
      typeof target === "string" ? target : null,
      typeof target === "string" ? null : xpathOf(target),
      step,
      value,
    ) as Promise<T | null>;
  const nothingMatches = (target: Target) =>
    new Error(`nothing visible matches ${JSON.stringify(target)} at ${page.url()}`);
  /** The first visible match's answer to `step`, or fails naming the target. */
  const shownFirst = async <T>(target: Target, step: Step, value?: string) => {
    const answer = await onFirstShown<T>(target, step, value);
    if (answer === null) throw nothingMatches(target);
    return answer;
  };
  const first = async (target: Target) => {
    const handle = (await onFirstShown(target, "mark")) ? await page.$("[data-e2e-target]") : null;
    if (!handle) throw nothingMatches(target);
    return handle;
  };
  const checkErrors = () => {
    if (errors.length) throw new Error(`the page threw: ${errors.join("; ")}`);
  };
  /**
   * Keeps the tab for the next journey once nothing of this one is left: no other tab, no cookie, no storage of the
   * site (the tab on a static file of it, whose storage is the site's), the phone's viewport. A tab that cannot be
   * cleaned goes with its context.
   */
  const cleanForNextJourney = async (owner: { keep(page: Page): void }) => {
    try {
      for (const other of await context.pages()) if (other !== page) await other.close();
      // The page errors seen so far are this journey's, checked after the clean-up as after a context's close.
      const seen = errors.splice(0);
      try {
        if (lastSite) await enginePage.go(`${lastSite}${SITE_FILE}`);
      } finally {
        errors.push(...seen);
      }
      for (const stop of unwatch) stop();
      await context.deleteCookie(...(await context.cookies()));
      if (lastSite) await page.evaluate(`(() => { ${CLEAR_STORAGE} })()`);
      const left = await context.cookies();
      if (left.length) throw new Error(`${left.length} cookies left`);
      if (resized) await page.setViewport({ width: 414, height: 896 });
    } catch {
      await context.close();
      return;
    }
    owner.keep(page);
  };
  const enginePage: EnginePage = {
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
      // The site's origin, not an app's.
      if (!/\.example$/.test(new URL(url).hostname)) lastSite = site;
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
      // A BiDi key action per character costs Firefox some 30 ms, a second for an address. With JavaScript off no
      // page script can see the keys: the field gets the value typing would leave. With it on, the field gets all but
      // the last character, and that one is typed: the islands hear a real key, and an input event with the whole
      // value, as after Playwright's `fill` in Chromium.
      const last = javaScript ? ([...text].at(-1) ?? "") : "";
      await shownFirst(target, last ? "fill, then type" : "fill", text.slice(0, text.length - last.length));
      if (last) await page.keyboard.type(last);
    },
    click: async (target) => {
      checkErrors();
      const { x, y } = await shownFirst<{ x: number; y: number }>(target, "click");
      await page.mouse.click(x, y);
    },
    press: async (key) => {
      checkErrors();
      // puppeteer names the space bar by its character.
      if (key !== "Shift+Tab") return page.keyboard.press(key === "Space" ? " " : key);
      await page.keyboard.down("Shift");
      await page.keyboard.press("Tab");
      await page.keyboard.up("Shift");
    },
    text: async (target = "main") => withoutPhraseBreaks(await shownFirst<string>(target, "text")),
    visible: async (target) => (await onFirstShown<number>(target, "count")) ?? 0,
    resize: (width, height) => {
      resized = true;
      return page.setViewport({ width, height });
    },
    exec: async <T>(body: string) => page.evaluate(`(() => { ${body} })()`) as Promise<T>,
    // The cookies the browser holds. Firefox keeps a cookie that a response deleted (`Max-Age=0`, as sign-out sends
    // for every one of the site's) in WebDriver BiDi's list, empty, expiring at the next whole second, until it
    // purges it: 43 and 47 of 60 sign-outs in a row left some there, listed seconds later (a journey's sign-out check
    // saw all nine once). Such an entry expires within a second of its deletion, so it is left out (the site's cookies
    // live for minutes, but a state in its last second).
    cookies: async () =>
      (await context.cookies()).filter(({ expires }) => expires === -1 || expires * 1000 > Date.now() + 1000) as never,
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
    newTab: async () => tab(context, await context.newPage(), javaScript),
    close: async () => {
      for (const stop of unwatch) stop();
      if (!owner) await page.close();
      else await cleanForNextJourney(owner);
      checkErrors();
    },
    requests: () => [...requests],
    responses: () => [...responses],
    consoleMessages: () => [...consoleMessages],
    pageErrors: () => [...errors],
    // Clicks go by coordinates: nothing waits for the navigation they start.
    seesStreaming: true,
  };
  return enginePage;
}
