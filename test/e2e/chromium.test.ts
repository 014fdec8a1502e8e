import { describe } from "vitest";
import { chromiumForFile, siteUrl } from "./browser";
import { chromiumPage } from "./chromiumPage";
import { journeysIn } from "./engineJourneys";

// Every journey in Chromium (Debian's headless shell), JavaScript on and off, as in every other engine
// (engineJourneys.ts), on the HTTP preview of this file's vitest worker. CDP sees the tab's requests, responses and
// console, so the journeys that need them run here too.

const browser = chromiumForFile();

describe("Chromium", () => {
  journeysIn("Chromium", (javaScript) => chromiumPage(browser(), javaScript), {
    site: () => ({ url: siteUrl(), https: false }),
    capabilities: ["requests", "responses", "console"],
  });
});
