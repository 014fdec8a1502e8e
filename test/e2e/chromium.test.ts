import { describe, expect, it } from "vitest";
import { chromiumForFile, siteUrl } from "./browser";
import { chromiumPage } from "./chromiumPage";
import { enginesRunning, journeysIn } from "./engineJourneys";
import { lineBreaksIn } from "./lineBreaks";

// Every journey in Chromium (Debian's headless shell), JavaScript on and off, as in every other engine
// (engineJourneys.ts), on the HTTP preview of this file's vitest worker. CDP sees the tab's requests, responses and
// console, and a click returns before a streamed page has loaded, so the journeys that need them run here too.

const browser = chromiumForFile();

describe("Chromium", () => {
  journeysIn("Chromium", (javaScript) => chromiumPage(browser(), javaScript), {
    site: () => ({ url: siteUrl(), https: false }),
  });
  lineBreaksIn(
    "Chromium",
    () => chromiumPage(browser(), true),
    () => ({ url: siteUrl(), https: false }),
  );
});

describe("the engines' journeys", () => {
  // A journey whose needs no engine has would be registered nowhere and never fail.
  it("each runs in at least one engine", () => {
    const nowhere = Object.entries(enginesRunning()).filter(([, engines]) => engines.length === 0);
    expect(nowhere.map(([name]) => name)).toEqual([]);
    expect(Object.keys(enginesRunning()).length).toBeGreaterThan(10);
  });
});
