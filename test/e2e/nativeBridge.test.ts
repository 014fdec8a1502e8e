import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { launchChromium, scriptsLoadedBy, sealedCookie, withCookies } from "./browser";

// SPEC §1 native bridge in Chromium playing the app's webview (docs/native-bridge.md): the app's
// User-Agent marker and a stand-in for react-native-webview's `window.ReactNativeWebView`.

const baseUrl = inject("baseUrl");
const BROWSER_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";
const APP_UA = `${BROWSER_UA} KazahanaApp/3.12.0`;
// The `client` brand: its support modal has a mail link and a target=_blank FAQ link; service top is its dev URL.
const signInPath = `/signIn?client_id=${sampleClientIds.client}`;
const SERVICE_TOP = "https://dev.kazahana-sec.example/";
const FAQ = "https://support.kazahana-sec.example/faq";
const SUPPORT_MAIL = "support@kazahana-sec.example";

declare global {
  interface Window {
    __sent: string[];
  }
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A context as the app's webview (or a plain browser with the same stand-in, to prove detection is the server's). */
async function webView(userAgent: string): Promise<{ context: BrowserContext; outside: string[] }> {
  const context = await browser.newContext({ userAgent, locale: "ja-JP" });
  await withCookies(context, [await sealedCookie("signIn", { loginChallenge: "login-challenge-bridge-0001" })]);
  await context.addInitScript(() => {
    window.__sent = [];
    (window as unknown as { ReactNativeWebView: unknown }).ReactNativeWebView = {
      postMessage: (message: string) => window.__sent.push(message),
    };
  });
  // Any navigation away from the site lands here instead of the network.
  const outside: string[] = [];
  await context.route(/^https:\/\/[^/]*kazahana-sec\.example\//, async (route) => {
    outside.push(route.request().url());
    await route.fulfill({
      status: 200,
      contentType: "text/html",
      body: "<!doctype html><title>outside</title><p>outside</p>",
    });
  });
  return { context, outside };
}

async function openInApp(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${baseUrl}${path}`);
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.nativeBridge ?? "")).toBe("on");
  return page;
}

const sent = (page: Page) =>
  page.evaluate(() => window.__sent.map((text) => JSON.parse(text) as Record<string, unknown>));

describe("native bridge (SPEC §1) inside the app's webview", () => {
  it("posts openExternalBrowser for the service-top link and does not navigate", async () => {
    const { context, outside } = await webView(APP_UA);
    try {
      const page = await openInApp(context, signInPath);
      const before = page.url();
      await page.getByRole("link", { name: "サービスのトップへ戻る" }).click();
      await expect
        .poll(() => sent(page))
        .toEqual([
          { v: 1, id: expect.stringMatching(/^[0-9a-f]{24}$/), type: "openExternalBrowser", url: SERVICE_TOP },
        ]);
      expect(page.url()).toBe(before);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("posts sendMail for the support modal's mail link and openExternalBrowser for its target=_blank link", async () => {
    const { context, outside } = await webView(APP_UA);
    try {
      const page = await openInApp(context, signInPath);
      await page.getByRole("button", { name: "お困りの方はこちら" }).click();
      const modal = page.locator("#support-modal");
      await expect.poll(() => modal.isVisible()).toBe(true);
      await modal.getByRole("link", { name: SUPPORT_MAIL }).click();
      await modal.getByRole("link", { name: "よくある質問" }).click();
      await expect
        .poll(() => sent(page))
        .toEqual([
          { v: 1, id: expect.any(String), type: "sendMail", to: SUPPORT_MAIL },
          { v: 1, id: expect.any(String), type: "openExternalBrowser", url: FAQ },
        ]);
      expect(context.pages()).toHaveLength(1);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("leaves same-origin links alone", async () => {
    const { context } = await webView(APP_UA);
    try {
      const page = await openInApp(context, signInPath);
      await page.getByRole("link", { name: "パスワードをお忘れの方はこちら" }).click();
      await page.waitForURL(/\/resetPassword\?client_id=/);
      expect(await page.evaluate(() => window.__sent)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("works on a screen that has no other island (the bridge alone brings the script)", async () => {
    const { context, outside } = await webView(APP_UA);
    try {
      const page = await openInApp(context, "/no/such/page");
      expect(
        await page
          .locator("[data-island]")
          .evaluateAll((hosts) => hosts.map((host) => (host as HTMLElement).dataset.island)),
      ).toEqual(["NativeBridge"]);
      await page.getByRole("link", { name: "サービスのトップへ戻る" }).click();
      await expect.poll(async () => (await sent(page)).map((message) => message.type)).toEqual(["openExternalBrowser"]);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("native bridge in a plain browser", () => {
  it("loads no bridge script and links behave normally, even with a ReactNativeWebView object present", async () => {
    const { context, outside } = await webView(BROWSER_UA);
    try {
      const page = await context.newPage();
      const scripts: string[] = [];
      page.on("request", (request) => {
        if (request.resourceType() === "script") scripts.push(request.url());
      });
      await page.goto(`${baseUrl}${signInPath}`);
      // The page's own islands hydrate (the guard records its marker), the bridge is not among them.
      await expect.poll(() => page.evaluate(() => sessionStorage.getItem("signin.tabMarker"))).not.toBeNull();
      expect(await page.locator('[data-island="NativeBridge"]').count()).toBe(0);
      expect(scripts.filter((url) => /NativeBridge/.test(url))).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.dataset.nativeBridge ?? null)).toBeNull();
      await page.getByRole("link", { name: "サービスのトップへ戻る" }).click();
      await page.waitForURL(SERVICE_TOP);
      expect(outside).toEqual([SERVICE_TOP]);
    } finally {
      await context.close();
    }
  });

  it("ships no script at all on a screen without islands", async () => {
    const { context } = await webView(BROWSER_UA);
    try {
      const page = await context.newPage();
      expect(await scriptsLoadedBy(page, `${baseUrl}/no/such/page`)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
