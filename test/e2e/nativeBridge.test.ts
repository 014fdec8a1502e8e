import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { withoutPhraseBreaks } from "../support/phraseBreaks";
import { CLIENT, GUNGNIR } from "../support/vocabulary";
import { chromiumForFile, scriptsLoadedBy, sealedCookie, siteUrl, withCookies } from "./browser";

// Chromium's alone: the React Native stand-in. product §1 native bridge in Chromium playing the app's webview
// (docs/native-bridge.md): the app's User-Agent marker, a stand-in for react-native-webview's
// `window.ReactNativeWebView` planted by an init script, and request interception for the hosts the links lead to,
// which only Playwright over CDP gives here. The journeys themselves run in every engine (engineJourneys.ts).

const baseUrl = siteUrl();
const BROWSER_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";
const APP_UA = `${BROWSER_UA} KazahanaApp/3.12.0`;
// The `client` brand: its support modal has a mail link and a target=_blank FAQ link; service top is its dev URL.
const signInPath = `/signIn?client_id=${CLIENT.clientId}`;
const SERVICE_TOP = "https://dev.kazahana-sec.example/";
const FAQ = "https://support.kazahana-sec.example/faq";
const SUPPORT_MAIL = "support@kazahana-sec.example";

// The `client` brand's app rule (themes/data/brands.ts): apps older than this are asked to update.
const STORE = {
  ios: "https://apps.apple.com/jp/app/id6450000001",
  android: "https://play.google.com/store/apps/details?id=jp.example.kazahana",
};
const PROMPTED_AT_KEY = "signin.updatePromptedAt";
const UPDATE_TITLE = "アプリの最新版があります";
const HOUR = 60 * 60 * 1000;

declare global {
  interface Window {
    __sent: string[];
    __replies: number;
  }
}

/** How the stand-in app answers getNativeAppVersion: its version and platform, a refusal, or nothing. */
type FakeApp = { version: string; platform: string } | { refuse: true } | null;
const UP_TO_DATE: FakeApp = { version: "3.12.0", platform: "android" };

const browser = chromiumForFile();

/**
 * A context as the app's webview (or a plain browser with the same stand-in, to prove detection is the server's).
 * The stand-in records every message and answers getNativeAppVersion as `app` says, a moment later, on `document`
 * for Android and on `window` for iOS, as react-native-webview does.
 */
async function webView(
  userAgent: string,
  app: FakeApp = UP_TO_DATE,
  webAuthn: boolean | null = null,
): Promise<{ context: BrowserContext; outside: string[] }> {
  const context = await browser().newContext({ userAgent, locale: "ja-JP" });
  await withCookies(context, [await sealedCookie("signIn", { loginChallenge: "login-challenge-bridge-0001" })]);
  await context.addInitScript(
    ([fake, supported]: [FakeApp, boolean | null]) => {
      window.__sent = [];
      window.__replies = 0;
      (window as unknown as { ReactNativeWebView: unknown }).ReactNativeWebView = {
        postMessage: (message: string) => {
          window.__sent.push(message);
          const request = JSON.parse(message) as { type: string; id: string };
          // getWebAuthnSupport (docs/passkeys.md): answered only when the test says what the app knows.
          if (request.type === "getWebAuthnSupport" && supported !== null) {
            const answer = { v: 1, type: request.type, replyTo: request.id, ok: true, supported };
            setTimeout(() => window.dispatchEvent(new MessageEvent("message", { data: JSON.stringify(answer) })));
            return;
          }
          if (request.type !== "getNativeAppVersion" || fake === null) return;
          const envelope = { v: 1, type: request.type, replyTo: request.id };
          const reply =
            "refuse" in fake ? { ...envelope, ok: false, error: "not ready" } : { ...envelope, ok: true, ...fake };
          const target = "platform" in fake && fake.platform === "android" ? document : window;
          setTimeout(() => {
            target.dispatchEvent(new MessageEvent("message", { data: JSON.stringify(reply) }));
            window.__replies += 1;
          });
        },
      };
    },
    [app, webAuthn] as [FakeApp, boolean | null],
  );
  // Any navigation away from the site lands here instead of the network.
  const outside: string[] = [];
  await context.route(/^https:\/\/([^/]*kazahana-sec\.example|apps\.apple\.com|play\.google\.com)\//, async (route) => {
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
/** What the links posted: every message but the version check's and the passkey question's. */
const linkMessages = async (page: Page) =>
  (await sent(page)).filter(
    (message) => message.type !== "getNativeAppVersion" && message.type !== "getWebAuthnSupport",
  );
const versionChecks = async (page: Page) =>
  (await sent(page)).filter((message) => message.type === "getNativeAppVersion").length;
const updatePrompt = (page: Page) => page.getByRole("dialog", { name: UPDATE_TITLE });
const promptedAt = (page: Page) => page.evaluate((key) => localStorage.getItem(key), PROMPTED_AT_KEY);
/** After the stand-in app has answered and the page has taken the answer in (its promise callbacks ran). */
async function answered(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(() => window.__replies)).toBe(1);
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve)));
}

describe("native bridge (product §1) inside the app's webview", () => {
  it("posts openExternalBrowser for the service-top link and does not navigate", async () => {
    const { context, outside } = await webView(APP_UA);
    try {
      const page = await openInApp(context, signInPath);
      const before = page.url();
      await page.getByRole("link", { name: "サービスのトップへ戻る" }).click();
      await expect
        .poll(() => linkMessages(page))
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
        .poll(() => linkMessages(page))
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
      expect(await linkMessages(page)).toEqual([]);
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
      await expect
        .poll(async () => (await linkMessages(page)).map((message) => message.type))
        .toEqual(["openExternalBrowser"]);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("passkeys inside the app's webview (docs/passkeys.md, The brands' apps)", () => {
  it("offers no passkey once the app says its webview cannot use them, and again once it says it can", async () => {
    const { context } = await webView(APP_UA, UP_TO_DATE, false);
    try {
      const page = await openInApp(context, signInPath);
      expect(await page.locator('form[action="/signIn/passkey"]').count()).toBe(1);
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.webauthn ?? "")).toBe("off");
      expect(await page.locator('form[action="/signIn/passkey"]').isVisible()).toBe(false);
      const cookies = await context.cookies(baseUrl);
      expect(cookies.find((cookie) => cookie.name === "__Host-webauthn")?.value).toBe("off");
      // The next page comes without any passkey option: the worker read the app's answer.
      await page.reload();
      expect(await page.locator('form[action="/signIn/passkey"]').count()).toBe(0);
    } finally {
      await context.close();
    }
    const updated = await webView(APP_UA, UP_TO_DATE, true);
    try {
      const page = await openInApp(updated.context, signInPath);
      await page.evaluate(() => {
        // biome-ignore lint/suspicious/noDocumentCookie: the test plays an earlier page's answer.
        document.cookie = "__Host-webauthn=off; Path=/; Secure; SameSite=Strict";
      });
      await page.reload();
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.webauthn ?? "")).toBe("on");
      expect((await updated.context.cookies(baseUrl)).some((cookie) => cookie.name === "__Host-webauthn")).toBe(false);
    } finally {
      await updated.context.close();
    }
  });
});

describe("version check and update prompt (product §1 check version, app version; §9 frequency 24)", () => {
  it("asks an outdated app to update; アップデートする opens its platform's store through the app", async () => {
    const { context, outside } = await webView(APP_UA, { version: "3.11.2", platform: "ios" });
    try {
      const page = await openInApp(context, signInPath);
      await expect.poll(() => updatePrompt(page).isVisible()).toBe(true);
      expect(await updatePrompt(page).textContent()).toContain("ストアから最新版にアップデートしてください");
      expect(await sent(page)).toEqual([
        { v: 1, id: expect.stringMatching(/^[0-9a-f]{24}$/), type: "getWebAuthnSupport" },
        { v: 1, id: expect.stringMatching(/^[0-9a-f]{24}$/), type: "getNativeAppVersion" },
      ]);
      expect(Number(await promptedAt(page))).toBeGreaterThan(Date.now() - HOUR);

      await updatePrompt(page).getByRole("link", { name: "アップデートする" }).click();
      await expect
        .poll(() => linkMessages(page))
        .toEqual([{ v: 1, id: expect.any(String), type: "openExternalBrowser", url: STORE.ios }]);
      await expect.poll(() => updatePrompt(page).count()).toBe(0);
      expect(outside).toEqual([]);
      expect(page.url()).toContain("/signIn");
    } finally {
      await context.close();
    }
  });

  it("shows the prompt at most once in 24 hours; あとで closes it", async () => {
    const { context } = await webView(APP_UA, { version: "2.0", platform: "android" });
    try {
      const page = await openInApp(context, signInPath);
      await expect.poll(() => updatePrompt(page).isVisible()).toBe(true);
      await updatePrompt(page).getByRole("button", { name: "あとで" }).click();
      await expect.poll(() => updatePrompt(page).count()).toBe(0);
      expect(await linkMessages(page)).toEqual([]);

      // Within 24 hours the next page does not even ask the app.
      await page.reload();
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.nativeBridge ?? "")).toBe("on");
      expect(await versionChecks(page)).toBe(0);
      expect(await updatePrompt(page).count()).toBe(0);

      // 24 hours later it asks again, and this Android app gets its own store.
      await page.evaluate(({ key, at }) => localStorage.setItem(key, at), {
        key: PROMPTED_AT_KEY,
        at: String(Date.now() - 24 * HOUR),
      });
      await page.reload();
      await expect.poll(() => updatePrompt(page).isVisible()).toBe(true);
      await updatePrompt(page).getByRole("link", { name: "アップデートする" }).click();
      await expect
        .poll(() => linkMessages(page))
        .toEqual([{ v: 1, id: expect.any(String), type: "openExternalBrowser", url: STORE.android }]);
    } finally {
      await context.close();
    }
  });

  it.each([
    ["is on the recommended version", { version: "3.12.0", platform: "ios" }],
    ["is newer", { version: "4.0.1", platform: "android" }],
    ["refuses to answer", { refuse: true }],
    ["answers an unknown platform", { version: "1.0", platform: "windows" }],
  ] as const)("does not prompt when the app %s", async (_name, app) => {
    const { context } = await webView(APP_UA, app);
    try {
      const page = await openInApp(context, signInPath);
      expect(await versionChecks(page)).toBe(1);
      await answered(page);
      // The decision to prompt records its time first: nothing recorded means no prompt.
      expect(await promptedAt(page)).toBeNull();
      expect(await updatePrompt(page).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("does not ask an app whose brand has no app rule", async () => {
    const { context } = await webView(APP_UA, { version: "1.0", platform: "ios" });
    try {
      const page = await openInApp(context, `/resetPassword?client_id=${GUNGNIR.clientId}`);
      expect(await versionChecks(page)).toBe(0);
      expect(await updatePrompt(page).count()).toBe(0);
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
      // No version check either, however old the stand-in app claims to be.
      expect(await page.evaluate(() => window.__sent)).toEqual([]);
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
      const statuses: number[] = [];
      page.on("response", (response) => {
        if (response.request().isNavigationRequest()) statuses.push(response.status());
      });
      expect(await scriptsLoadedBy(page, `${baseUrl}/no/such/page`)).toEqual([]);
      // The site's own not-found screen (a page of the site's layout, not a bare error), with no island on it.
      expect(statuses).toEqual([404]);
      expect((await page.locator("h1").allTextContents()).map(withoutPhraseBreaks)).toEqual(["ページが見つかりません"]);
      expect(await page.locator("[data-island]").count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
