import { describe, expect, it } from "vitest";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { chromiumForFile, previewHttpsUrl, withLocalCertificate } from "./browser";
import { asTestDevice, emulator, openApp } from "./journeys";

// The site and the emulator over HTTPS on localhost (`npm run dev:https`; here the same plugins under
// `vite preview`), HTTP/2 included, as WebKit needs for the site's Secure __Host- cookies. Every absolute URL the
// site and the emulator build keeps the port: a journey from the app's start to its code only completes if the login
// URL, the redirects and the callback all do.

const browser = chromiumForFile();

describe("the site over local HTTPS (HTTP/2)", () => {
  it("signs in from the app's start to its code, every URL on https://localhost with its port", async () => {
    const baseUrl = previewHttpsUrl();
    expect(baseUrl).toMatch(/^https:\/\/localhost:\d+$/);
    const email = `https.${crypto.randomUUID().slice(0, 8)}@example.com`;
    // The emulator's developer endpoints, through the site's proxy, over the same HTTPS (its certificate made here).
    await withLocalCertificate(() => emulator(baseUrl).seed({ email }));
    const context = await asTestDevice(browser(), () =>
      browser().newContext({ ignoreHTTPSErrors: true, locale: "ja-JP" }),
    );
    try {
      const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "extSignIn");
      const page = await context.newPage();
      await page.goto(app.startUrl);
      // The app's start answers the sign-in screen itself; every later URL (the OAuth2 server's
      // redirects after the login) must keep the port for the app to get its code below.
      expect(page.url()).toBe(app.startUrl);
      // Over HTTP/2, where the worker's URL used to lose its port.
      const protocol = await page.evaluate(
        () => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).nextHopProtocol,
      );
      expect(protocol).toBe("h2");
      const cookies = await context.cookies(baseUrl);
      expect(cookies.find((cookie) => cookie.name === "__Host-sign-in")?.secure).toBe(true);
      await page.locator("#field-username").fill(email);
      await page.locator("#field-password").fill(PASSWORD);
      await page.getByRole("button", { name: "ログイン", exact: true }).click();
      const callback = await app.received;
      expect(`${callback.origin}${callback.pathname}`).toBe(app.redirectUri);
      expect(callback.searchParams.get("code")).toMatch(/.{16,}/);
    } finally {
      await context.close();
    }
  });
});
