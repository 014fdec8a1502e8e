import { closeSync, openSync, readSync, statSync } from "node:fs";
import { inject } from "vitest";

// What a journey needs of a browser tab, whatever engine and protocol is behind it (issue 22): WebKitGTK and WPE
// through W3C WebDriver (webkit.ts), Firefox ESR through WebDriver BiDi (firefox.ts). Every method works with the
// page's JavaScript off too: the drivers run their own scripts outside the page's.

/** An element: a CSS selector, or the visible button or link with exactly this text. */
export type Target = string | { button: string } | { link: string };

export interface EngineCookie {
  name: string;
  value: string;
  secure: boolean;
  httpOnly: boolean;
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
  /** The visible text of the first match (of the page's main content without a target). */
  text(target?: Target): Promise<string>;
  /** How many matches are displayed. */
  visible(target: Target): Promise<number>;
  /** Runs a function body (`return …`) in the page, even with the page's own script off. */
  exec<T>(body: string): Promise<T>;
  cookies(): Promise<EngineCookie[]>;
  /** Plants host-only, Secure, HttpOnly cookies of the site at `origin` (a screen's state, as the site sets it). */
  setCookies(origin: string, cookies: { name: string; value: string }[]): Promise<void>;
  /** A PNG of the viewport, or of the first match. */
  screenshot(target?: Target): Promise<Buffer>;
  /** Resolves with the first URL starting with `prefix` the tab navigates to (an app's redirect URI, say). */
  reached(prefix: string): Promise<URL>;
  /** Another tab of the same browser profile (cookies and localStorage shared). */
  newTab(): Promise<EnginePage>;
  close(): Promise<void>;
}

/** XPath of a visible-text button or link (normalised whitespace), for the drivers that take XPath. */
export function xpathOf(target: { button: string } | { link: string }): string {
  const [tag, text] = "button" in target ? ["button", target.button] : ["a", target.link];
  return `//${tag}[normalize-space(.)=${JSON.stringify(text)}]`;
}

/** Polls until `check` holds: a condition, never a fixed wait. Fails naming `what` after about `timeoutMs`. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      // A page between two documents cannot answer yet.
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never: ${what}${last ? ` (last: ${String(last)})` : ""}`);
}

const LEFT = "data-e2e-left";

/**
 * Clicks a control that loads a new document (a form's submit, a link) and waits until that document has loaded:
 * the old one is marked first, so a page that answers at the same URL (a refusal, a 429) is told apart.
 */
export async function submit(page: EnginePage, target: Target): Promise<void> {
  await page.exec(`document.documentElement.setAttribute("${LEFT}", ""); return true;`);
  await page.click(target);
  await until(
    () =>
      page.exec<boolean>(
        `return !document.documentElement.hasAttribute("${LEFT}") && document.readyState === "complete";`,
      ),
    `a new document after clicking ${JSON.stringify(target)}`,
  );
}

/** The path of the tab's document. */
export async function pathOf(page: EnginePage): Promise<string> {
  return new URL(await page.url()).pathname;
}

/**
 * The uncaught errors the site's pages reported while `journey` ran (islands/client.tsx posts every one to
 * /report/island, which logs `island_crashed`): how a test catches a page error in an engine whose driver has no
 * console. The HTTPS preview is shared by the engines' files, so a report fails whichever journey was running.
 */
export async function pageErrorsDuring(journey: () => Promise<void>): Promise<string[]> {
  const file = inject("httpsLogFile");
  // Only what the journey added is read: the log holds every request of the run.
  const from = statSync(file).size;
  await journey();
  const added = Buffer.alloc(statSync(file).size - from);
  const descriptor = openSync(file, "r");
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
