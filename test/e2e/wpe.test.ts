import { afterAll, beforeAll } from "vitest";
import { journeysIn } from "./engineJourneys";
import { startWebKit } from "./webkit";

// Issue 22: every journey in WPE WebKit 2.38 (about Safari 16.0: no Popover API, no Fetch Metadata), the oldest
// engine tested here (docs/browsers.md), JavaScript on and off: every modal opens, reads and closes by the
// script-free fallback.

let wpe: Awaited<ReturnType<typeof startWebKit>> | undefined;
beforeAll(async () => {
  wpe = await startWebKit("wpe");
}, 120_000);
afterAll(() => wpe?.stop());

journeysIn(
  "WPE 2.38",
  async (javaScript) => {
    if (!wpe) throw new Error("WPE did not start");
    return wpe.page({ javaScript });
  },
  {
    oneTab: "cog, WPE's browser, shows one web view: a second window of the driver is not a second tab",
  },
);
