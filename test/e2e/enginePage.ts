import { closeSync, openSync, readSync, statSync } from "node:fs";
import { PHRASE_BREAK } from "../support/phraseBreaks";

// What a journey needs of a browser tab, whatever engine and protocol is behind it: Chromium through Playwright
// (chromiumPage.ts), WebKitGTK and WPE through W3C WebDriver (webkit.ts), Firefox ESR through WebDriver BiDi
// (firefox.ts). Every method works with the page's JavaScript off too: the drivers run their own scripts outside the
// page's. What only some drivers can see (the network, the console) is an optional capability: a journey that needs
// one is registered only for the engines that have it (engineJourneys.ts, `needs`).

/** An element: a CSS selector, or the visible button or link with exactly this text. */
export type Target = string | { button: string } | { link: string };

export interface EngineCookie {
  name: string;
  value: string;
  secure: boolean;
  httpOnly: boolean;
}

/** The keys a keyboard-only user presses, as real key events of the browser (never a script's). */
export type Key = "Tab" | "Shift+Tab" | "Enter" | "Space" | "Escape";

/** What a driver may or may not see of its tab, beyond the DOM. */
export type Capability = "requests" | "responses" | "console" | "streaming";

export interface SeenRequest {
  url: string;
  method: string;
}

export interface SeenResponse {
  url: string;
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
}

export interface EnginePage {
  readonly engine: string;
  readonly javaScript: boolean;
  go(url: string): Promise<void>;
  url(): Promise<string>;
  /** Empties the field and types `text` into it. */
  fill(target: Target, text: string): Promise<void>;
  /** Clicks the first visible match; a navigation it starts is not awaited (see `submit`). */
  click(target: Target): Promise<void>;
  /** Presses a key where the focus is, as the browser's own input (a navigation it starts is not awaited). */
  press(key: Key): Promise<void>;
  /**
   * The visible text of the first match (of the page's main content without a target), as it reads: without the
   * phrase-boundary markers of the site's Japanese (test/support/phraseBreaks.ts).
   */
  text(target?: Target): Promise<string>;
  /** How many matches are displayed. */
  visible(target: Target): Promise<number>;
  /**
   * Sets the tab's viewport (WebDriver's window) to `width` × `height` CSS px; the page relays out without a reload.
   * Not in WPE (cog's headless view keeps its own size).
   */
  resize?(width: number, height: number): Promise<void>;
  /** Runs a function body (`return …`) in the page, even with the page's own script off. */
  exec<T>(body: string): Promise<T>;
  cookies(): Promise<EngineCookie[]>;
  /**
   * Forgets what the site left in this tab: every cookie, and the storage of the page it shows (a new visitor's tab,
   * without a new browser context: the HTTP cache stays warm).
   */
  forgetSite(): Promise<void>;
  /** Plants host-only, Secure, HttpOnly cookies of the site at `origin` (a screen's state, as the site sets it). */
  setCookies(origin: string, cookies: { name: string; value: string }[]): Promise<void>;
  /** A PNG of the viewport, or of the first match. */
  screenshot(target?: Target): Promise<Buffer>;
  /** Resolves with the first URL starting with `prefix` the tab navigates to (an app's redirect URI, say). */
  reached(prefix: string): Promise<URL>;
  /**
   * Starts watching for a navigation to a URL starting with `prefix`: the function resolves with the first one from
   * now on (an app opened twice gets its second callback, not the first).
   */
  watchFor(prefix: string): () => Promise<URL>;
  /** Another tab of the same browser profile (cookies and localStorage shared). */
  newTab(): Promise<EnginePage>;
  close(): Promise<void>;
  /** Capability "requests": every request the tab made (redirected ones too), in order. */
  requests?(): SeenRequest[];
  /** Capability "responses": the responses to the tab's documents (its navigations), in order. */
  responses?(): SeenResponse[];
  /** Capability "console": what the pages wrote to the console (`type: text`), in order. */
  consoleMessages?(): string[];
  /** Capability "console": the uncaught errors the pages threw, in order. */
  pageErrors?(): string[];
  /**
   * Capability "streaming": a click returns before the document it starts has loaded, so a test sees a page while
   * it streams (a spinner in the place of a late part). W3C WebDriver's click waits for the load.
   */
  readonly seesStreaming?: true;
}

/**
 * `watchFor` and `reached` read off the requests a tab's driver sees (the array its listener keeps adding to): the
 * app's redirect URI and a brand's top do not resolve here, so the request to them is what shows the tab got there.
 */
export function requestWaits(requests: readonly SeenRequest[]): Pick<EnginePage, "watchFor" | "reached"> {
  const firstFrom = (from: number, prefix: string) => requests.slice(from).find(({ url }) => url.startsWith(prefix));
  const waitFrom = (from: number, prefix: string) => async () => {
    await until(async () => firstFrom(from, prefix) !== undefined, `a request to ${prefix}`);
    return new URL(firstFrom(from, prefix)?.url ?? "");
  };
  return { watchFor: (prefix) => waitFrom(requests.length, prefix), reached: (prefix) => waitFrom(0, prefix)() };
}

/** Which capabilities `page` has: what its methods are there for. */
export function capabilitiesOf(page: EnginePage): Capability[] {
  const has: Capability[] = [];
  if (page.requests) has.push("requests");
  if (page.responses) has.push("responses");
  if (page.consoleMessages && page.pageErrors) has.push("console");
  if (page.seesStreaming) has.push("streaming");
  return has;
}

/** The capability's method, or fails: a journey that needs one is never run where it is missing. */
export function needed<K extends "requests" | "responses" | "consoleMessages" | "pageErrors">(
  page: EnginePage,
  method: K,
): NonNullable<EnginePage[K]> {
  const found = page[method];
  if (!found) throw new Error(`${page.engine} has no ${method}: the journey should not have been registered here`);
  return found.bind(page) as NonNullable<EnginePage[K]>;
}

/**
 * XPath of a visible-text button or link (normalised whitespace, without the phrase-boundary markers), for the
 * drivers that take XPath.
 */
export function xpathOf(target: { button: string } | { link: string }): string {
  const [tag, text] = "button" in target ? ["button", target.button] : ["a", target.link];
  return `//${tag}[normalize-space(translate(., "${PHRASE_BREAK}", ""))=${JSON.stringify(text)}]`;
}

/**
 * Polls until `check` holds: a condition, never a fixed wait. Fails naming `what` after about `timeoutMs`. The polls
 * come every 25 ms for the first tenth of a second (most conditions hold by then), every 50 ms for the next fifth,
 * then every 100 ms: each is a call into the browser, and a slow upstream's three seconds took 120 of them.
 */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let poll = 0; Date.now() < deadline; poll++) {
    try {
      if (await check()) return;
    } catch (error) {
      // A page between two documents cannot answer yet.
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, poll < 4 ? 25 : poll < 8 ? 50 : 100));
  }
  throw new Error(`never: ${what}${last ? ` (last: ${String(last)})` : ""}`);
}

const LEFT = "data-e2e-left";

/**
 * Does what loads a new document (a form's submit, a link) and waits until that document has loaded: the old one is
 * marked first, so a page that answers at the same URL (a refusal, a 429) is told apart.
 */
export async function leaving(page: EnginePage, act: () => Promise<void>, what: string): Promise<void> {
  await page.exec(`document.documentElement.setAttribute("${LEFT}", ""); return true;`);
  await act();
  await until(
    () =>
      page.exec<boolean>(
        `return !document.documentElement.hasAttribute("${LEFT}") && document.readyState === "complete";`,
      ),
    `a new document after ${what}`,
  );
}

/** Clicks a control that loads a new document and waits until it has loaded (`leaving`). */
export function submit(page: EnginePage, target: Target): Promise<void> {
  return leaving(page, () => page.click(target), `clicking ${JSON.stringify(target)}`);
}

/** A page script that empties the storage of the page the tab shows (nothing where it has none: about:blank). */
export const CLEAR_STORAGE = "try { localStorage.clear(); sessionStorage.clear(); } catch {} return true;";

/**
 * A page script's statements that put `value` into the input `element` as typing leaves it, for the page's script to
 * hear: the value through the element's own class's setter, then the input event typing sends. A hydrated controlled
 * React field replaces the instance's `value` setter with one that records the value as already seen, so that an
 * input event after `element.value = …` changes nothing in its state, and the field's next render (the one after
 * hydration, say) puts back what its state held. Before hydration React finds the changed value and replays the
 * change itself.
 */
export const SET_VALUE_AS_TYPED = `Object.getOwnPropertyDescriptor(Object.getPrototypeOf(element), "value").set.call(element, value);
element.dispatchEvent(new Event("input", { bubbles: true }));`;

/** The path of the tab's document. */
export async function pathOf(page: EnginePage): Promise<string> {
  return new URL(await page.url()).pathname;
}

/**
 * The uncaught errors the site's pages reported after byte `from` of the log (islands/client.tsx posts every one to
 * /report/island, which logs `island_crashed`), read from the log of the preview the engine uses alone: how a test catches a page error in an
 * engine whose driver has no console (WebKit's). The engine's file runs its journeys one after another against a
 * preview of its own, so a report in the log belongs to the journey that was running.
 */
export function reportedErrorsSince(logFile: string, from: number): string[] {
  const added = Buffer.alloc(statSync(logFile).size - from);
  const descriptor = openSync(logFile, "r");
  try {
    readSync(descriptor, added, 0, added.length, from);
  } finally {
    closeSync(descriptor);
  }
  return added
    .toString("utf8")
    .split("\n")
    .filter((line) => line.includes('"island_crashed"'));
}
