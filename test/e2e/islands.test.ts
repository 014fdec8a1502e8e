import { describe, expect, it } from "vitest";
import { withoutPhraseBreaks } from "../support/phraseBreaks";
import { GUNGNIR, LEMON } from "../support/vocabulary";
import { chromiumForFile, cspViolations, islandsHydrated, sealedCookie, siteUrl, withCookies } from "./browser";
import { SET_VALUE_AS_TYPED } from "./enginePage";

// The islands in Chromium under the site's real CSP (no bypass): they hydrate and work, and no script or style of
// the page is refused; the detector of refusals proves it sees one.

const baseUrl = siteUrl();
const browser = chromiumForFile();

async function signUpPasswordPage(serviceId: string, javaScriptEnabled = true) {
  const context = await browser().newContext({ javaScriptEnabled });
  await withCookies(context, [
    await sealedCookie("signUp", { loginChallenge: "challenge", email: "new.user@example.com" }),
    `__Host-service=${serviceId}`,
  ]);
  const csp = await cspViolations(context);
  const page = csp.watch(await context.newPage());
  const response = await page.goto(`${baseUrl}/signUp/inputPassword`);
  expect(response?.status()).toBe(200);
  return { context, page, csp, policy: response?.headers()["content-security-policy"] };
}

describe("islands in Chromium", () => {
  it("hydrates under the strict CSP: live checklist, submit disabled while invalid, show/hide", async () => {
    const { context, page, csp, policy } = await signUpPasswordPage(GUNGNIR.serviceId);
    try {
      // The site's own policy: scripts by nonce only, no inline handler, no style attribute.
      expect(policy).toMatch(/script-src 'nonce-[^']+' 'strict-dynamic'; style-src 'self' 'nonce-[^']+';/);
      const toggle = page.locator(".password-toggle");
      await expect.poll(() => toggle.isVisible()).toBe(true);
      await islandsHydrated(page);
      const submit = page.getByRole("button", { name: "登録する" });
      const password = page.locator("#field-password");
      await password.fill("abc");
      await expect.poll(() => submit.isDisabled()).toBe(true);
      expect(await page.locator('[data-check="length"]').getAttribute("data-met")).toBe("false");
      expect(await page.locator('[data-check="lowercase"]').getAttribute("data-met")).toBe("true");
      // The standard rules ask for a symbol; liqueur-lemon's below do not.
      expect(await page.locator('[data-check="symbol"]').getAttribute("data-met")).toBe("false");
      expect(withoutPhraseBreaks((await page.locator("#field-password-message").textContent()) ?? "")).toBe(
        "パスワードは8文字以上256文字未満で入力してください",
      );
      await password.fill("Abcdefg1!");
      await expect.poll(() => submit.isEnabled()).toBe(true);
      expect(await page.locator(".checklist-row").count()).toBeGreaterThan(0);
      expect(await page.locator('.checklist-row[data-met="false"]').count()).toBe(0);
      expect(await password.getAttribute("type")).toBe("password");
      await toggle.click();
      expect(await password.getAttribute("type")).toBe("text");
      expect(await toggle.getAttribute("aria-pressed")).toBe("true");
      await toggle.click();
      expect(await password.getAttribute("type")).toBe("password");
      expect(await csp.events(page)).toEqual([]);
      expect(csp.reports).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("takes a value set as the WebKit and Firefox drivers set it into the field's state, which its next render keeps", async () => {
    // Their `fill` sets all but the last character by script (SET_VALUE_AS_TYPED) and types that one. A render
    // between the two (the one after hydration, say) must not put the field back to an empty state.
    const { context, page } = await signUpPasswordPage(GUNGNIR.serviceId);
    try {
      await islandsHydrated(page);
      const password = page.locator("#field-password");
      await password.evaluate(
        (element, { script, value }) => new Function("element", "value", script)(element, value),
        { script: SET_VALUE_AS_TYPED, value: "Abcdefg1!" },
      );
      // The show/hide toggle renders the field again.
      await page.locator(".password-toggle").click();
      expect(await password.getAttribute("type")).toBe("text");
      expect(await password.inputValue()).toBe("Abcdefg1!");
      expect(await page.locator('.checklist-row[data-met="false"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("sees CSP violations: injected markup's event handler and style attribute are refused, and both signals report them", async () => {
    const { context, page, csp } = await signUpPasswordPage(GUNGNIR.serviceId);
    try {
      await islandsHydrated(page);
      expect(await csp.events(page)).toEqual([]);
      // What an HTML injection would add: an inline event handler and an inline style, which no nonce can cover.
      await page.evaluate(() => {
        document.body.insertAdjacentHTML(
          "beforeend",
          `<img src="data:," alt="" onerror="document.documentElement.dataset.injected = 'ran'">` +
            `<p id="injected-style" style="color: rgb(255, 0, 0)">injected</p>`,
        );
      });
      await expect
        .poll(async () => (await csp.events(page)).sort())
        .toEqual(["script-src-attr blocked inline", "style-src-attr blocked inline"]);
      await expect.poll(() => csp.reports.length).toBe(2);
      expect(csp.reports.join("\n")).toMatch(/inline event handler violates the following Content Security Policy/);
      // Refused, not merely reported: the handler never ran and the style never applied.
      expect(await page.evaluate(() => document.documentElement.dataset.injected)).toBeUndefined();
      expect(await page.locator("#injected-style").evaluate((p) => getComputedStyle(p).color)).not.toBe(
        "rgb(255, 0, 0)",
      );
    } finally {
      await context.close();
    }
  });

  it("applies liqueur-lemon's relaxed rules in the browser too (one rule module)", async () => {
    const { context, page } = await signUpPasswordPage(LEMON.serviceId);
    try {
      await expect.poll(() => page.locator(".password-toggle").isVisible()).toBe(true);
      await page.locator("#field-password").fill("Abcdefgh1");
      await expect.poll(() => page.getByRole("button", { name: "登録する" }).isEnabled()).toBe(true);
      // The checklist is there, without the symbol rule.
      expect(await page.locator('[data-check="length"]').getAttribute("data-met")).toBe("true");
      expect(await page.locator('[data-check="symbol"]').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("opens the support modal without JavaScript", async () => {
    const context = await browser().newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const response = await page.goto(`${baseUrl}/resetPassword?client_id=${GUNGNIR.clientId}`);
      expect(response?.status()).toBe(200);
      const modal = page.locator("#support-modal");
      expect(await modal.count()).toBe(1);
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
    const { context, page } = await signUpPasswordPage(GUNGNIR.serviceId);
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
