import type { Page, Response } from "playwright-core";
import { describe, expect, it } from "vitest";
import { modals } from "../../messages/modals";
import { GUNGNIR, PASSWORD, TOTP_SECRET } from "../support/vocabulary";
import { CHROMIUM_HEADERS, chromiumForFile, siteUrl } from "./browser";
import { emulator, newContext, openApp } from "./journeys";

// architecture §8: over a limit, the user sees the page's own screen again with the 429 modal, with
// JavaScript on and off. The per-subject limits are production's in every environment (wrangler.toml).

const baseUrl = siteUrl();
const idp = emulator(baseUrl);
// The limits count across runs within a minute; each run's subjects are its own.
const run = Date.now().toString(36);

const browser = chromiumForFile();

/** Clicks the form's button and returns the answer of the navigation it starts; a click that starts none fails with the page's state. */
async function submit(page: Page, button: string, attempt: number): Promise<Response | null> {
  return Promise.all([page.waitForNavigation(), page.getByRole("button", { name: button, exact: true }).click()]).then(
    ([response]) => response,
    async (error: Error) => {
      throw new Error(`attempt ${attempt}: ${error.message}\n${await pageState(page, button)}`);
    },
  );
}

/** Fills and submits a form until the site answers 429 (at most 2 × limit + 1 times; fixed windows may split). */
async function untilRefused(page: Page, limit: number, fill: () => Promise<void>, button: string): Promise<Response> {
  for (let attempt = 0; attempt < 2 * limit + 1; attempt++) {
    await fill();
    const response = await submit(page, button, attempt + 1);
    if (response?.status() === 429) {
      expect(attempt).toBeGreaterThanOrEqual(limit);
      return response;
    }
  }
  throw new Error(`no 429 within ${2 * limit + 1} attempts`);
}

/** What the page showed when a submit led nowhere (no navigation): an open modal in front of the button, say. */
async function pageState(page: Page, button: string): Promise<string> {
  return page
    .evaluate((label) => {
      const read = (element: Element) => element.textContent?.replaceAll("\u200b", "").trim();
      const submit = Array.from(document.querySelectorAll("button")).find((b) => read(b) === label);
      const open = Array.from(document.querySelectorAll("dialog[open], :popover-open"), read);
      return JSON.stringify({
        url: location.href,
        submitDisabled: submit?.disabled,
        fields: Array.from(document.querySelectorAll("input:not([type=hidden])"), (i) => ({
          id: i.id,
          value: (i as HTMLInputElement).value,
          validity: (i as HTMLInputElement).validationMessage,
        })),
        open,
        hydrated: Array.from(document.querySelectorAll("[data-island]"), (h) => [
          h.getAttribute("data-island"),
          h.hasAttribute("data-hydrated"),
        ]),
        inert: document.querySelectorAll("[inert]").length,
      });
    }, button)
    .catch((error: Error) => `(page state unreadable: ${error.message})`);
}

async function expectRefusedScreen(page: Page, response: Response, path: string) {
  expect(response.status()).toBe(429);
  expect(response.headers()["retry-after"]).toBe("60");
  expect(new URL(page.url()).pathname).toBe(path);
  const dialog = page.getByRole("alertdialog", { name: modals.tooManyAttempts.title });
  await expect.poll(() => dialog.isVisible()).toBe(true);
  expect(await page.locator(`form[action="${path}"]`).count()).toBe(1);
}

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? "js" : "nojs";
  describe(`429 on the page's own layout, JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    it("credential: the sixth password for one login ID", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
        const page = await context.newPage();
        await page.goto(app.startUrl);
        const username = `limited.${mode}.${run}@example.com`;
        const fill = async () => {
          // A wrong password opens the closable 'wrong login ID or password' modal: the user closes it first.
          const close = page.getByRole("button", { name: "閉じる" }).filter({ visible: true });
          if (await close.count()) await close.first().click();
          await page.locator("#field-username").fill(username);
          await page.locator("#field-password").fill("Wr0ngPassword!");
        };
        await expectRefusedScreen(page, await untilRefused(page, 5, fill, "ログイン"), "/signIn");
        expect(await page.locator("#field-username").inputValue()).toBe(username);
      } finally {
        await context.close();
      }
    });

    it("code: the sixth second-factor code on one session", async () => {
      const email = `mfa.limited.${mode}.${run}@example.com`;
      await idp.seed({ email, mfa: { totp: TOTP_SECRET } });
      // The site counts codes per MFA session in fixed one-minute windows; the emulator ends a session after its
      // fifth wrong code (emulator/contract/limits.ts, maxWrongCodes). Six codes in one window: the site refuses the
      // sixth (429). When a window boundary splits them, the sixth reaches the emulator instead, which has ended the
      // session (409, the retry modal); the next session's six codes, seconds later, are then in one window.
      for (let session = 1; session <= 2; session++) {
        const context = await newContext(browser(), javaScriptEnabled);
        try {
          const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId);
          const page = await context.newPage();
          await page.goto(app.startUrl);
          await page.locator("#field-username").fill(email);
          await page.locator("#field-password").fill(PASSWORD);
          await submit(page, "ログイン", 0);
          expect(new URL(page.url()).pathname).toBe("/signIn/mfa");
          for (let attempt = 1; attempt <= 5; attempt++) {
            await page.locator("#field-mfaCode").fill("000000");
            expect((await submit(page, "ログイン", attempt))?.status(), `wrong code ${attempt}`).toBe(401);
          }
          await page.locator("#field-mfaCode").fill("000000");
          const sixth = await submit(page, "ログイン", 6);
          if (sixth?.status() === 429) {
            await expectRefusedScreen(page, sixth, "/signIn/mfa");
            return;
          }
          expect(sixth?.status(), "the sixth code, past the emulator's cap").toBe(modals.retry.status);
          await expect.poll(() => page.getByRole("alertdialog", { name: modals.retry.title }).isVisible()).toBe(true);
        } finally {
          await context.close();
        }
      }
      throw new Error("two sessions' six codes were both split by a window boundary");
    });

    it("mail: the fourth sign-up for one address", async () => {
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        const app = await openApp(context, baseUrl, GUNGNIR.serviceId, GUNGNIR.clientId, "signUp");
        const page = await context.newPage();
        await page.goto(app.startUrl);
        const email = `flood.${mode}.${run}@example.com`;
        const fill = async () => {
          // Each accepted address moves on to the password step; the back link returns to the e-mail step.
          if (new URL(page.url()).pathname !== "/signUp/checkEmail") await page.goto(`${baseUrl}/signUp/checkEmail`);
          await page.locator("#field-email").fill(email);
        };
        await expectRefusedScreen(page, await untilRefused(page, 3, fill, "次へ"), "/signUp/checkEmail");
      } finally {
        await context.close();
      }
    });
  });
}

describe("429 on the page's own layout for the read class", () => {
  // The dev environment's per-IP read limit (wrangler.toml). Each test floods a client address of its own
  // (TEST-NET-3), which miniflare keeps as CF-Connecting-IP, so the flood reaches no other test.
  const READ_LIMIT = 3000;

  /**
   * Spends an address's read budget: until refused, and at most 2 × limit + 1 requests (fixed windows split), sent
   * from Node 24 at a time straight to the site's workerd.
   */
  async function flood(address: string): Promise<number> {
    let sent = 0;
    let refused = false;
    const worker = async () => {
      while (!refused && sent < 2 * READ_LIMIT + 1) {
        sent++;
        const response = await fetch(`${baseUrl}/health`, { headers: { "CF-Connecting-IP": address } });
        await response.arrayBuffer();
        if (response.status === 429) refused = true;
      }
    };
    await Promise.all(Array.from({ length: 24 }, worker));
    expect(refused, `no 429 within ${sent} requests`).toBe(true);
    return sent;
  }

  // One flooded address serves both tests (a flood is thousands of requests); the second floods again only if the
  // window it was spent in has ended meanwhile.
  let flooded: string | undefined;
  async function floodedAddress(): Promise<string> {
    if (flooded === undefined) {
      const address = `203.0.113.${10 + Math.floor(Math.random() * 200)}`;
      expect(await flood(address)).toBeGreaterThan(READ_LIMIT);
      flooded = address;
    }
    return flooded;
  }

  for (const javaScriptEnabled of [true, false]) {
    it(`a page over the per-IP read limit, JavaScript ${javaScriptEnabled ? "on" : "off"}`, async () => {
      const address = await floodedAddress();
      const context = await newContext(browser(), javaScriptEnabled);
      try {
        await context.setExtraHTTPHeaders({ ...CHROMIUM_HEADERS, "CF-Connecting-IP": address });
        const page = await context.newPage();
        const open = () => page.goto(`${baseUrl}/resetPassword?client_id=${GUNGNIR.clientId}`);
        let response = await open();
        // The flood may have ended just before its window did: then the new window is spent once more.
        if (response?.status() !== 429) {
          await flood(address);
          response = await open();
        }
        expect(response?.status()).toBe(429);
        expect(response?.headers()["retry-after"]).toBe("60");
        const dialog = page.getByRole("alertdialog", { name: modals.tooManyAttempts.title });
        await expect.poll(() => dialog.isVisible()).toBe(true);
        // The brand's own layout, with the catalogue's message.
        expect(await page.title()).toContain("認証-");
        expect(await dialog.textContent()).toContain(modals.tooManyAttempts.body);
      } finally {
        await context.close();
      }
    }, 120_000);
  }
});
