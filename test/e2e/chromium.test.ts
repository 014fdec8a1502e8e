import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { chromiumForFile, siteUrl } from "./browser";
import { chromiumPage } from "./chromiumPage";
import { ENGINES, enginesRunning, JOURNEYS, journeysIn } from "./engineJourneys";
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

  // docs/testing.md, "Journeys by layer": a server rule's journey names the workerd tests that prove it.
  it("name, for each server rule, workerd tests that exist", () => {
    const named = Object.values(JOURNEYS).flatMap((journey) => journey.serverRule?.provenIn ?? []);
    expect(named.length).toBeGreaterThan(5);
    for (const test of named) {
      const [file = "", name = ""] = test.split(" › ");
      expect(existsSync(file) && readFileSync(file, "utf8").includes(JSON.stringify(name)), test).toBe(true);
    }
  });

  it("are each in the table of docs/testing.md, with the engines they run in", () => {
    const docs = readFileSync("docs/testing.md", "utf8");
    for (const [name, engines] of Object.entries(enginesRunning())) {
      const row = docs.split("\n").find((line) => line.startsWith(`| ${name} |`));
      expect(row, name).toBeDefined();
      expect(row?.split(" | ")[1], name).toBe(
        engines.length === Object.keys(ENGINES).length ? "all" : engines.join(", "),
      );
    }
  });
});
