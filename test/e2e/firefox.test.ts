import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD } from "../support/emulatorClient";
import { expectAppCode, secondFactors, signInCase } from "./engineJourneys";
import { clickAt, launchFirefox } from "./firefox";

// Issue 22: the journeys in Firefox ESR, JavaScript on and off, over local HTTPS as the other engines.

for (const javaScript of [true, false]) {
  describe(`Firefox ESR with JavaScript ${javaScript ? "on" : "off"}`, () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await launchFirefox({ javaScript });
    }, 60_000);
    afterAll(() => browser?.close());

    it.each(secondFactors)("signs in (%s) from the app's start, and the app receives its code", async (factor) => {
      const { baseUrl, email, start, signInUrl, hasSecondStep, secondFactorCode } = await signInCase("firefox", factor);
      const context = await (browser as Browser).createBrowserContext();
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (error) => errors.push(String(error)));
        let resolveApp!: (url: URL) => void;
        const received = new Promise<URL>((resolve) => (resolveApp = resolve));
        page.on("request", (request) => {
          if (request.url().startsWith(start.appRedirect)) resolveApp(new URL(request.url()));
        });
        await page.goto(`${baseUrl}${start.path}`);
        expect(page.url()).toBe(signInUrl);
        const signInCookie = (await context.cookies()).find((cookie) => cookie.name === "__Host-sign-in");
        expect(signInCookie?.secure).toBe(true);
        // With script, every island hydrates in Firefox; with the pref off, none does.
        const cookieNames = async () => (await context.cookies()).map((cookie) => cookie.name);
        if (javaScript) {
          await page.waitForFunction(() =>
            [...document.querySelectorAll("[data-island]")].every((host) => host.hasAttribute("data-hydrated")),
          );
          expect(await cookieNames()).toContain("__Host-js");
        }
        // Without (no evaluation in the page then: it would never settle), the island script's marker cookie stays unset.
        else expect(await cookieNames()).not.toContain("__Host-js");
        await page.type("#field-username", email);
        await page.type("#field-password", PASSWORD);
        const submitted = clickAt(page, 'form[action="/signIn"] button[type="submit"]');
        // Without a second factor the browser goes straight on to the app, which is only ever a request here.
        if (!hasSecondStep) await submitted;
        else {
          await Promise.all([page.waitForNavigation(), submitted]);
          expect(new URL(page.url()).pathname).toBe("/signIn/mfa");
          await page.type("#field-mfaCode", await secondFactorCode());
          await clickAt(page, 'form[action="/signIn/mfa"] button[type="submit"]');
        }
        expectAppCode(await received);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}
