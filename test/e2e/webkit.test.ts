import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD } from "../support/emulatorClient";
import { expectAppCode, secondFactors, signInCase } from "./engineJourneys";
import { startWebKit } from "./webkit";

// Issue 22: the journeys in WebKitGTK (the engine of every iPhone browser and of the brands' iOS webviews), JavaScript
// on and off, over local HTTPS (WebKit drops Secure cookies on http://localhost).

let webkit: Awaited<ReturnType<typeof startWebKit>> | undefined;

beforeAll(async () => {
  webkit = await startWebKit();
}, 120_000);
afterAll(() => webkit?.stop());

/** Polls until `check` holds (a condition, never a fixed wait). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never: ${what}`);
}

for (const javaScript of [true, false]) {
  describe(`WebKitGTK with JavaScript ${javaScript ? "on" : "off"}`, () => {
    it.each(secondFactors)("signs in (%s) from the app's start, and the app receives its code", async (factor) => {
      const { baseUrl, email, start, signInUrl, hasSecondStep, secondFactorCode } = await signInCase("webkit", factor);
      const page = await (webkit ?? (await startWebKit())).page({ javaScript });
      try {
        await page.go(`${baseUrl}${start.path}`);
        expect(await page.url()).toBe(signInUrl);
        expect((await page.cookies()).find((cookie) => cookie.name === "__Host-sign-in")?.secure).toBe(true);
        // With script, every island hydrates in WebKit (islands/client.tsx marks each host); without, none runs.
        const hydration = `const hosts = [...document.querySelectorAll("[data-island]")];
            return hosts.length > 0 && hosts.every((host) => host.hasAttribute("data-hydrated"));`;
        if (javaScript) await until(() => page.exec<boolean>(hydration), "every island hydrated");
        else expect(await page.exec<boolean>(hydration)).toBe(false);
        if (factor === "password") {
          // The support contact is a script-free popover (SPEC §2 「お困りの方はこちら」): it opens and closes in
          // WebKit with and without script.
          const open = `return document.getElementById("support-modal").matches(":popover-open");`;
          await page.click('button[popovertarget="support-modal"]');
          await until(() => page.exec<boolean>(open), "the support modal open");
          await page.click('#support-modal button[popovertargetaction="hide"]');
          await until(async () => !(await page.exec<boolean>(open)), "the support modal closed");
        }
        await page.type("#field-username", email);
        await page.type("#field-password", PASSWORD);
        await page.click('form[action="/signIn"] button[type="submit"]');
        if (hasSecondStep) {
          await until(async () => (await page.url()).endsWith("/signIn/mfa"), "the second-factor step");
          await page.type("#field-mfaCode", await secondFactorCode());
          await page.click('form[action="/signIn/mfa"] button[type="submit"]');
        }
        await until(async () => (await page.url()).startsWith(start.appRedirect), "the app's redirect");
        expectAppCode(new URL(await page.url()));
      } finally {
        await page.quit();
      }
    });
  });
}
