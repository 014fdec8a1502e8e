import { afterAll, beforeAll, inject } from "vitest";
import { journeysIn } from "./engineJourneys";
import { lineBreaksIn } from "./lineBreaks";
import { startWebKit } from "./webkit";

// Every journey in WebKitGTK 2.50 (the engine of every iPhone browser and of the brands' iOS webviews), JavaScript
// on and off, over local HTTPS (WebKit drops Secure cookies on http://localhost). Its driver sees neither the network
// nor the console: the pages' error reports are read from the log of an HTTPS preview this file uses alone.

let webkit: Awaited<ReturnType<typeof startWebKit>> | undefined;
beforeAll(async () => {
  webkit = await startWebKit("webkitgtk");
}, 120_000);
afterAll(() => webkit?.stop());

journeysIn(
  "WebKitGTK",
  async (javaScript) => {
    if (!webkit) throw new Error("WebKitGTK did not start");
    return webkit.page({ javaScript });
  },
  {
    site: () => ({ url: inject("webKitSites").webkitgtk.url, https: true }),
    errorLog: () => inject("webKitSites").webkitgtk.logFile,
  },
);

lineBreaksIn(
  "WebKitGTK",
  async () => {
    if (!webkit) throw new Error("WebKitGTK did not start");
    return webkit.page({ javaScript: true });
  },
  () => ({ url: inject("webKitSites").webkitgtk.url, https: true }),
);
