import { afterAll, beforeAll } from "vitest";
import { journeysIn } from "./engineJourneys";
import { startWebKit } from "./webkit";

// Issue 22: every journey in WebKitGTK 2.50 (the engine of every iPhone browser and of the brands' iOS webviews),
// JavaScript on and off, over local HTTPS (WebKit drops Secure cookies on http://localhost).

let webkit: Awaited<ReturnType<typeof startWebKit>> | undefined;
beforeAll(async () => {
  webkit = await startWebKit("webkitgtk");
}, 120_000);
afterAll(() => webkit?.stop());

journeysIn("WebKitGTK", async (javaScript) => {
  if (!webkit) throw new Error("WebKitGTK did not start");
  return webkit.page({ javaScript });
});
