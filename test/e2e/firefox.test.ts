import { TOTP } from "otpauth";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { appStart } from "../support/appStart";
import { PASSWORD } from "../support/emulatorClient";
import { httpsSiteUrl, withLocalCertificate } from "./browser";
import { clickAt, launchFirefox } from "./firefox";
import { emulator } from "./journeys";

// Issue 22: the journeys in Firefox ESR, JavaScript on and off, over local HTTPS as the other engines.

const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };
const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const SECOND_FACTORS = {
  password: undefined,
  TOTP: { totp: TOTP_SECRET },
  SMS: { sms: "+8109012345678" },
} as const;

for (const javaScript of [true, false]) {
  describe(`Firefox ESR with JavaScript ${javaScript ? "on" : "off"}`, () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await launchFirefox({ javaScript });
    }, 60_000);
    afterAll(() => browser?.close());

    it.each(Object.keys(SECOND_FACTORS) as (keyof typeof SECOND_FACTORS)[])(
      "signs in (%s) from the app's start, and the app receives its code",
      async (factor) => {
        const baseUrl = httpsSiteUrl();
        const email = `firefox.${crypto.randomUUID().slice(0, 8)}@example.com`;
        const mfa = SECOND_FACTORS[factor];
        const idp = emulator(baseUrl);
        await withLocalCertificate(() => idp.seed({ email, ...(mfa ? { mfa } : {}) }));
        const start = await appStart(GUNGNIR, "extSignIn");
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
          expect(page.url()).toBe(`${baseUrl}/signIn?client_id=${GUNGNIR.clientId}`);
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
          if (!mfa) await submitted;
          else {
            await Promise.all([page.waitForNavigation(), submitted]);
            expect(new URL(page.url()).pathname).toBe("/signIn/mfa");
            const code =
              "totp" in mfa
                ? new TOTP({ secret: mfa.totp }).generate()
                : await withLocalCertificate(() => idp.latestCode(mfa.sms));
            await page.type("#field-mfaCode", code);
            await clickAt(page, 'form[action="/signIn/mfa"] button[type="submit"]');
          }
          const callback = await received;
          expect(callback.searchParams.get("state")).toBe("app-state-0001");
          expect(callback.searchParams.get("code")).toMatch(/.{16,}/);
          expect(errors).toEqual([]);
        } finally {
          await context.close();
        }
      },
    );
  });
}
