import * as oauth from "oauth4webapi";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { modals } from "../../messages/modals";
import type { View } from "../../worker/session/authRequest";
import { GUNGNIR, NEW_PASSWORD, PASSWORD } from "../support/vocabulary";
import { chromiumForFile, siteUrl } from "./browser";
import { type App, emulator, newContext, oidcApp, openApp, submit } from "./journeys";

// docs/devices.md: an intruder who has the password is shut out. The owner (browser A, the test device) signs in on
// /security; the intruder (browser B, a new device) signs in with the mailed code relayed to them, and their app
// holds a refresh token. The owner signs B out on /security: B's refresh token is refused, and B's next sign-in
// asks for a mailed code again (the device was forgotten). B gets in once more by a relayed code; the owner changes
// the password: B's new refresh token is refused, and the owner stays signed in.
// Chromium only: these are the identity API's rules, proven in workerd (test/worker, test/emulator); this one
// journey shows them end to end in a real browser, script on and off (docs/testing.md). It needs two browsers of
// one user at once, two Playwright contexts, which EnginePage does not offer.

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
const browser = chromiumForFile({ emulator: idp });

const heading = (page: Page) => page.locator("h1").textContent();

/** The app opens the site for `view` in `page`, and the user types the login ID and password and signs in. */
async function signIn(page: Page, view: View, login: string): Promise<App> {
  const app = await openApp(page.context(), baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, view);
  await page.goto(app.startUrl);
  await page.locator("#field-username").fill(login);
  await page.locator("#field-password").fill(PASSWORD);
  await page.getByRole("button", { name: "ログイン", exact: true }).click();
  return app;
}

/**
 * The intruder's sign-in from browser B: the password, then the mailed code the owner's mailbox relayed. Fails
 * naming where it went instead when no code was asked. Answers the app's refresh token, the app's code exchanged
 * with its PKCE verifier at the token endpoint (the site's proxy to the identity API's).
 */
async function intruderSignsIn(context: BrowserContext, login: string): Promise<string> {
  const page = await context.newPage();
  const app = await signIn(page, "extSignIn", login);
  const landed = await Promise.race([
    page.waitForURL((url) => url.pathname === "/signIn/device").then(() => "/signIn/device"),
    Promise.resolve(app.received).then((url) => `the app's ${url.origin}${url.pathname}, with no code asked`),
  ]);
  expect(landed, "B's sign-in asks for the mailed device code").toBe("/signIn/device");
  expect(await heading(page)).toContain("新しい端末からのログイン");
  await page.locator("#field-code").fill(await idp.latestCode(login));
  await page.getByRole("button", { name: "ログイン", exact: true }).click();
  const callback = await app.received;
  expect(callback.searchParams.get("code")).toBeTruthy();
  const { as, client, grant } = await oidcApp(baseUrl, GUNGNIR.clientId);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, await grant(app, callback));
  if (!tokens.refresh_token) throw new Error("the token response has no refresh token");
  return tokens.refresh_token;
}

/** The app refreshes its tokens: the token endpoint's status and the grant error or the next refresh token. */
async function refresh(refreshToken: string): Promise<{ status: number; error?: string; refresh_token?: string }> {
  const response = await fetch(`${baseUrl}/oauth2/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "refresh_token",
      client_id: GUNGNIR.clientId,
      refresh_token: refreshToken,
    }),
  });
  return { status: response.status, ...((await response.json()) as { error?: string; refresh_token?: string }) };
}

for (const javaScriptEnabled of [true, false]) {
  describe(`an intruder shut out, JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    it("signing the intruder's device out refuses its token and asks it for a code again; a new password refuses the next", async () => {
      const login = `owner.${javaScriptEnabled ? "js" : "nojs"}@example.com`;
      await idp.seed({ email: login });
      const owner = await newContext(browser(), javaScriptEnabled);
      const intruder = await newContext(browser(), javaScriptEnabled, { device: "new" });
      try {
        // 1. The owner, on the test device the account knows, opens /security through the app.
        const page = await owner.newPage();
        await signIn(page, "security", login);
        await page.waitForURL((url) => url.pathname === "/security");

        // 2. The intruder, on a new device, gets in with the relayed code; the app's refresh token works.
        const first = await refresh(await intruderSignsIn(intruder, login));
        expect(first.status).toBe(200);

        // 3. The owner sees two devices and signs the other out (the sign-in above was seconds ago: no step-up).
        await page.reload();
        const devices = page.locator("ul.rows").first().locator("li.row");
        expect(await devices.count()).toBe(2);
        expect(await devices.locator(".tag", { hasText: "この端末" }).count()).toBe(1);
        // The button names its device to a screen reader: its name begins with what it shows.
        await Promise.all([
          page.waitForNavigation(),
          page.getByRole("button", { name: /^この端末からログアウト/ }).click(),
        ]);
        expect(new URL(page.url()).pathname).toBe("/security");
        expect(await page.locator("dialog[open]").textContent()).toContain(modals.deviceSignedOut.title);
        expect(await page.locator('form[action="/security/signout"]').count()).toBe(0);
        expect(await refresh(first.refresh_token ?? "")).toMatchObject({ status: 400, error: "invalid_grant" });

        // 4–5. Forgotten: the intruder's next sign-in asks for a mailed code again; relayed, it gets in once more.
        const second = await intruderSignsIn(intruder, login);

        // 5. The owner changes the password through the app's own view, which asks for the password first.
        await signIn(page, "passwordChange", login);
        await page.waitForURL((url) => url.pathname === "/changePassword");
        await page.locator("#field-currentPassword").fill(PASSWORD);
        await page.locator("#field-newPassword").fill(NEW_PASSWORD);
        await submit(page, "変更する");
        expect(await page.locator("dialog[open]").textContent()).toContain(modals.passwordChanged.title);

        // 6. Every other session and refresh token ended: the intruder's is refused, the owner is still signed in.
        expect(await refresh(second)).toMatchObject({ status: 400, error: "invalid_grant" });
        await page.goto(`${baseUrl}/security`);
        expect(new URL(page.url()).pathname).toBe("/security");
        expect(await heading(page)).toContain("ログイン履歴と端末");
      } finally {
        await owner.close();
        await intruder.close();
      }
    });
  });
}
