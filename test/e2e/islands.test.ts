import { describe, expect, it } from "vitest";
import { sampleClientIds } from "../../themes/data/clients";
import { chromiumForFile, sealedCookie, siteUrl, withCookies } from "./browser";

const baseUrl = siteUrl();
const browser = chromiumForFile();

async function signUpPasswordPage(clientServiceCookie: string, javaScriptEnabled = true) {
  const context = await browser().newContext({ javaScriptEnabled });
  await withCookies(context, [
    await sealedCookie("signUp", { loginChallenge: "challenge", email: "new.user@example.com" }),
    `__Host-service=${clientServiceCookie}`,
  ]);
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await page.goto(`${baseUrl}/signUp/inputPassword`);
  return { context, page, violations };
}

describe("islands in Chromium", () => {
  it("hydrates under the strict CSP: live checklist, submit disabled while invalid, show/hide", async () => {
    const { context, page, violations } = await signUpPasswordPage("gungnir-aurora");
    try {
      const toggle = page.locator(".password-toggle");
      await expect.poll(() => toggle.isVisible()).toBe(true);
      const submit = page.getByRole("button", { name: "登録する" });
      const password = page.locator("#field-password");
      await password.fill("abc");
      await expect.poll(() => submit.isDisabled()).toBe(true);
      expect(await page.locator('[data-check="length"]').getAttribute("data-met")).toBe("false");
      expect(await page.locator('[data-check="lowercase"]').getAttribute("data-met")).toBe("true");
      expect(await page.locator("#field-password-message").textContent()).toBe(
        "パスワードは8文字以上256文字未満で入力してください",
      );
      await password.fill("Abcdefg1!");
      await expect.poll(() => submit.isEnabled()).toBe(true);
      expect(await page.locator('.checklist-row[data-met="false"]').count()).toBe(0);
      expect(await password.getAttribute("type")).toBe("password");
      await toggle.click();
      expect(await password.getAttribute("type")).toBe("text");
      expect(await toggle.getAttribute("aria-pressed")).toBe("true");
      await toggle.click();
      expect(await password.getAttribute("type")).toBe("password");
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("applies liqueur-lemon's relaxed rules in the browser too (one rule module)", async () => {
    const { context, page } = await signUpPasswordPage("liqueur-lemon");
    try {
      await expect.poll(() => page.locator(".password-toggle").isVisible()).toBe(true);
      await page.locator("#field-password").fill("Abcdefgh1");
      await expect.poll(() => page.getByRole("button", { name: "登録する" }).isEnabled()).toBe(true);
      expect(await page.locator('[data-check="symbol"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("opens the support modal without JavaScript", async () => {
    const context = await browser().newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${baseUrl}/resetPassword?client_id=${sampleClientIds.gungnir}`);
      const modal = page.locator("#support-modal");
      expect(await modal.isVisible()).toBe(false);
      await page.getByRole("button", { name: "お困りの方はこちら" }).click();
      await expect.poll(() => modal.isVisible()).toBe(true);
      expect(await modal.textContent()).toContain("受付時間");
      await modal.getByRole("button", { name: "閉じる" }).click();
      await expect.poll(() => modal.isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });

  it("reports an uncaught error of the page, which no island caught, to /report/island", async () => {
    const { context, page } = await signUpPasswordPage("gungnir-aurora");
    try {
      await expect.poll(() => page.locator(".password-toggle").isVisible()).toBe(true);
      // A beacon's body is not visible to the test: the worker's 204 says it took a well-formed report (a malformed
      // one is answered 400), and test/worker/errorReporting.test.ts checks what such a report becomes.
      const reported = page.waitForResponse((response) => response.url().endsWith("/report/island"));
      // A throw in a task of the page's own, as an event handler's or an older engine's missing API would be.
      await page.evaluate(() => {
        setTimeout(() => {
          throw new TypeError("dialog.showPopover is not a function");
        });
      });
      expect((await reported).status()).toBe(204);
    } finally {
      await context.close();
    }
  });
});
