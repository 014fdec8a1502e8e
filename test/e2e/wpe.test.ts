import { afterAll, beforeAll, inject } from "vitest";
import { journeysIn } from "./engineJourneys";
import { startWebKit } from "./webkit";

// Every journey in WPE WebKit 2.38 (about Safari 16.0: no Popover API, no Fetch Metadata), the oldest engine tested
// here (docs/browsers.md), JavaScript on and off: every modal opens, reads and closes by the script-free fallback.
// Its driver sees neither the network nor the console: the pages' error reports are read from the log of an HTTPS
// preview this file uses alone.

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
    site: () => ({ url: inject("webKitSites").wpe.url, https: true }),
    errorLog: () => inject("webKitSites").wpe.logFile,
  },
);
