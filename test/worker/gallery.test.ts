import { describe, expect, it } from "vitest";
import { allBrands } from "../../themes/brands";
import { get } from "./helpers";
import { expectBaseline } from "./securityBaseline";

// The dev-only brand gallery (`npm run gallery` screenshots it). This project builds with __DEV_ROUTES__ true, as
// the dev environment does; that production has no /__gallery at all is checked on its bundle
// (test/e2e/productionBuild.test.ts).

const decode = (html: string) =>
  html
    .replace(/&amp;/g, "&")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");

describe("/__gallery (dev only)", () => {
  it("shows one themed sign-in card per brand, labelled with its id and display name, and no script", async () => {
    const response = await get("/__gallery");
    expect(response.status).toBe(200);
    const html = await response.text();
    const brands = allBrands();
    expect(brands.length).toBeGreaterThan(40);
    const cards = [...html.matchAll(/<section class="gallery-item" data-brand="([^"]+)"/g)].map((match) => match[1]);
    expect(cards).toEqual(brands.map((brand) => brand.id));
    // One sign-in form per card: the real SignIn page, not a copy.
    expect(html.match(/<form[^>]* action="\/signIn"/g)).toHaveLength(brands.length);
    const sections = html.split('<section class="gallery-item"').slice(1);
    for (const [index, brand] of brands.entries()) {
      const section = decode(sections[index] ?? "");
      expect(section).toContain(`<code>${brand.id}</code>${brand.displayName}`);
      expect(section).toContain(`src="${brand.logoImageUrl}"`);
      // Its own theme, scoped to its card.
      expect(html).toContain(`[data-brand="${brand.id}"]{--brand-primary:${brand.colorPattern.primary}`);
    }
    expect(html).not.toContain("<script");
  });

  it("carries the security baseline: the CSP whose nonce its style uses, and noindex", async () => {
    const response = await get("/__gallery");
    expect(response.status).toBe(200);
    expectBaseline(response);
    const csp = response.headers.get("Content-Security-Policy") ?? "";
    const nonce = /style-src 'self' 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce, csp).toBeTruthy();
    const html = await response.text();
    const styles = [...html.matchAll(/<style([^>]*)>/g)].map((match) => match[1]);
    expect(styles.length).toBeGreaterThanOrEqual(2);
    for (const attributes of styles) expect(attributes).toContain(`nonce="${nonce}"`);
  });
});
