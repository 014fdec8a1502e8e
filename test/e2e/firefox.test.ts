import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll } from "vitest";
import { httpsSiteUrl } from "./browser";
import { journeysIn } from "./engineJourneys";
import { firefoxPage, launchFirefox } from "./firefox";
import { lineBreaksIn } from "./lineBreaks";

// Every journey in Firefox ESR, JavaScript on and off (a pref of the whole browser: one browser each), over local
// HTTPS as the WebKits. WebDriver BiDi sees the tab's requests, responses and console.

const browsers = new Map<boolean, Browser>();
beforeAll(async () => {
  for (const javaScript of [true, false]) browsers.set(javaScript, await launchFirefox({ javaScript }));
}, 120_000);
afterAll(async () => {
  for (const browser of browsers.values()) await browser.close();
});

journeysIn(
  "Firefox ESR",
  async (javaScript) => {
    const browser = browsers.get(javaScript);
    if (!browser) throw new Error("Firefox did not start");
    return firefoxPage(browser, javaScript);
  },
  { site: () => ({ url: httpsSiteUrl(), https: true }) },
);

lineBreaksIn(
  "Firefox ESR",
  async () => {
    const browser = browsers.get(true);
    if (!browser) throw new Error("Firefox did not start");
    return firefoxPage(browser, true);
  },
  () => ({ url: httpsSiteUrl(), https: true }),
);
