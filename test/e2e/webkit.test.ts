import { TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { appStart } from "../support/appStart";
import { PASSWORD } from "../support/emulatorClient";
import { httpsSiteUrl, withLocalCertificate } from "./browser";
import { emulator } from "./journeys";
import { startWebKit } from "./webkit";

// Issue 22: the journeys in WebKitGTK (the engine of every iPhone browser and of the brands' iOS webviews), JavaScript
// on and off, over local HTTPS (WebKit drops Secure cookies on http://localhost).

const GUNGNIR = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };
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

const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const SECOND_FACTORS = {
  password: undefined,
  TOTP: { totp: TOTP_SECRET },
  SMS: { sms: "+8109012345678" },
} as const;

for (const javaScript of [true, false]) {
  describe(`WebKitGTK with JavaScript ${javaScript ? "on" : "off"}`, () => {
    it.each(Object.keys(SECOND_FACTORS) as (keyof typeof SECOND_FACTORS)[])(
      "signs in (%s) from the app's start, and the app receives its code",
      async (factor) => {
        const baseUrl = httpsSiteUrl();
        const email = `webkit.${crypto.randomUUID().slice(0, 8)}@example.com`;
        const mfa = SECOND_FACTORS[factor];
        const idp = emulator(baseUrl);
        await withLocalCertificate(() => idp.seed({ email, ...(mfa ? { mfa } : {}) }));
        const start = await appStart(GUNGNIR, "extSignIn");
        const page = await (webkit ?? (await startWebKit())).page({ javaScript });
        try {
          await page.go(`${baseUrl}${start.path}`);
          expect(await page.url()).toBe(`${baseUrl}/signIn?client_id=${GUNGNIR.clientId}`);
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
          if (mfa) {
            await until(async () => (await page.url()).endsWith("/signIn/mfa"), "the second-factor step");
            const code =
              "totp" in mfa
                ? new TOTP({ secret: mfa.totp }).generate()
                : await withLocalCertificate(() => idp.latestCode(mfa.sms));
            await page.type("#field-mfaCode", code);
            await page.click('form[action="/signIn/mfa"] button[type="submit"]');
          }
          await until(async () => (await page.url()).startsWith(start.appRedirect), "the app's redirect");
          const callback = new URL(await page.url());
          expect(callback.searchParams.get("state")).toBe("app-state-0001");
          expect(callback.searchParams.get("code")).toMatch(/.{16,}/);
        } finally {
          await page.quit();
        }
      },
    );
  });
}
