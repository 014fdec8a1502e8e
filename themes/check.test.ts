import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test, vi } from "vitest";
import {
  ASSET_BUDGET_BYTES,
  type BrandCheckInput,
  brandTextPairs,
  checkBrands,
  contrastRatio,
  formatProblem,
  landedInput,
  unsafeSvg,
} from "./check";
import { rawBrands } from "./data/brands";
import { clients, sampleClientIds } from "./data/clients";
import type { RawBrand } from "./schema";

// Each case runs the whole check over 46 brands; on a loaded CI machine that can take seconds.
vi.setConfig({ testTimeout: 60_000 });

const root = fileURLToPath(new URL("..", import.meta.url));
const landed: BrandCheckInput = landedInput(root);
const { css, readAsset: readPublic } = landed;
const aurora = rawBrands.find(({ id }) => id === "gungnir-aurora") as RawBrand;

/** The check with one brand replaced (or added) and, optionally, other inputs changed. */
function checkWith(brand: RawBrand, change: Partial<BrandCheckInput> = {}) {
  const brands = [...rawBrands.filter(({ id }) => id !== brand.id), brand];
  return checkBrands({ ...landed, brands, ...change }).map(formatProblem);
}

const safeSvg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>';
/** Aurora with its logo replaced by `svg`. */
const withLogo = (svg: string) =>
  checkWith(aurora, {
    readAsset: (path) => (path === aurora.logoImageUrl ? Buffer.from(svg) : readPublic(path)),
  });

describe("npm run brands:check", () => {
  test("passes on the landed brands, clients and assets", () => {
    expect(checkBrands(landed).map(formatProblem)).toEqual([]);
  });

  test("the CLI exits 0 on the landed data and says what it checked", () => {
    const run = spawnSync("npm", ["run", "--silent", "brands:check"], { cwd: root, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/45 brands and the default theme, 22 clients, 138 assets: OK/);
  });
});

describe("contrast, from the tokens the stylesheet really combines", () => {
  test("finds every brand-coloured text pair of site.css: buttons, links on the page and the card, body text", () => {
    const pairs = brandTextPairs(css).map(({ selector, text, background }) => `${selector}: ${text} on ${background}`);
    expect(pairs).toEqual(
      expect.arrayContaining([
        "body: #1f2328 on var(--brand-bg-secondary)",
        "body a: var(--brand-link) on var(--brand-bg-secondary)",
        ".card a: var(--brand-link) on #ffffff",
        ".button: #ffffff on var(--brand-primary)",
        ".button--secondary: var(--brand-primary) on #ffffff",
        ".card .link-button: var(--brand-link) on #ffffff",
      ]),
    );
  });

  test("a new rule that puts text on a brand colour is checked too", () => {
    const badge = ".badge{color:#ffffff;background:var(--brand-secondary)}";
    expect(brandTextPairs(`${css}${badge}`)).toContainEqual({
      selector: ".badge",
      text: "#ffffff",
      background: "var(--brand-secondary)",
    });
    // Aurora's secondary (#7fb3d5) is too light for white text: the new rule would fail the check.
    expect(checkWith(aurora, { css: `${css}${badge}` })).toContainEqual(
      expect.stringMatching(/^brand gungnir-aurora: colorPattern\.secondary: text #ffffff on #7fb3d5 \(\.badge\)/),
    );
  });

  test("fails a brand with grey-on-grey text and names the brand and the field", () => {
    const grey: RawBrand = {
      ...aurora,
      id: "grey-on-grey",
      colorPattern: { primary: "#b0b0b0", secondary: "#c0c0c0", link: "#999999", background: { secondary: "#aaaaaa" } },
    };
    const problems = checkWith(grey);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^brand grey-on-grey: colorPattern\.primary: text #b0b0b0 on #ffffff \(\.button--secondary\)/,
        ),
        expect.stringMatching(/^brand grey-on-grey: colorPattern\.link: text #999999 on #aaaaaa \(body a\)/),
        expect.stringMatching(/^brand grey-on-grey: colorPattern\.link: text #999999 on #ffffff \(\.card a\)/),
        expect.stringMatching(/^brand grey-on-grey: colorPattern\.primary: text #ffffff on #b0b0b0 \(\.button\)/),
      ]),
    );
    expect(problems.every((line) => line.startsWith("brand grey-on-grey: "))).toBe(true);
  });

  test("checks body text on the brand's page background too", () => {
    const dark = { ...aurora, colorPattern: { ...aurora.colorPattern, background: { secondary: "#333333" } } };
    expect(checkWith(dark)).toContainEqual(
      expect.stringMatching(
        /^brand gungnir-aurora: colorPattern\.background\.secondary: text #1f2328 on #333333 \(body\)/,
      ),
    );
  });

  test("computes WCAG 2.x ratios", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
  });
});

describe("support messages", () => {
  test.each([
    ['<a href="https://example.com" onclick="steal()">FAQ</a>', "a@onclick=steal()"],
    ['<a href="javascript:alert(1)">FAQ</a>', "a@href=javascript:alert(1)"],
    ['<img src="x" onerror="alert(1)">', "img"],
    ['<span style="color:red">!</span>', "span@style=color:red"],
  ])("names what the product §9 sanitiser would remove from %s", (markup, removed) => {
    const brand = { ...aurora, support: { ...aurora.support, defaultMessage: `お困りの方は ${markup}` } };
    expect(checkWith(brand)).toEqual([
      expect.stringMatching(
        new RegExp(`^brand gungnir-aurora: support\\.defaultMessage: .*removes .*${removed.replace(/[()]/g, "\\$&")}`),
      ),
    ]);
  });

  test("accepts a link that opens a tab (the sanitiser only adds rel)", () => {
    const message = '<a href="https://support.example/faq" target="_blank">よくある質問</a>';
    expect(checkWith({ ...aurora, support: { ...aurora.support, smsMessage: message } })).toEqual([]);
  });
});

describe("assets", () => {
  test.each([
    ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "contains a <script>"],
    ['<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', "event handler"],
    [
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="https://evil.example/x.png"/></svg>',
      "references https://evil.example/x.png",
    ],
    [
      '<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(https://evil.example/a.css);</style></svg>',
      "<style>",
    ],
    ['<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https://evil.example/p)"/></svg>', "external resource"],
    ['<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div/></foreignObject></svg>', "foreignObject"],
    ["<html><body>not an svg</body></html>", "not an SVG"],
    ['<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"/>', "DOCTYPE"],
    ['<?xml-stylesheet href="https://evil.example/a.css"?><svg xmlns="http://www.w3.org/2000/svg"/>', "xml-stylesheet"],
    [
      '<svg xmlns="http://www.w3.org/2000/svg"><a><set attributeName="href" to="https://evil.example"/></a></svg>',
      "animates a link",
    ],
    ['<svg xmlns="http://www.w3.org/2000/svg"><iframe src="https://evil.example"/></svg>', "contains a <iframe>"],
    ['<svg xmlns="http://www.w3.org/2000/svg"><set to="java&#9;script:alert(1)"/></svg>', "javascript: URL"],
    ['<svg xmlns="http://www.w3.org/2000/svg"><rect>', "not well-formed"],
  ])("refuses an unsafe logo: %s", (svg, reason) => {
    expect(unsafeSvg(svg)).toContain(reason);
    expect(withLogo(svg)).toEqual([
      expect.stringContaining("brand gungnir-aurora: logoImageUrl: /brands/gungnir-aurora/logo.svg"),
    ]);
  });

  test("accepts a plain SVG with internal references", () => {
    const gradient = `<svg xmlns="http://www.w3.org/2000/svg"><defs><linearGradient id="g"/></defs><rect fill="url(#g)"/><use href="#g"/></svg>`;
    expect(unsafeSvg(safeSvg)).toBeUndefined();
    expect(unsafeSvg(gradient)).toBeUndefined();
  });

  test("refuses a missing asset, an oversize one and one that is not SVG", () => {
    expect(checkWith({ ...aurora, favicon: "/brands/gungnir-aurora/nowhere.svg" })).toEqual([
      "brand gungnir-aurora: favicon: /brands/gungnir-aurora/nowhere.svg does not exist under public/",
    ]);
    const huge = `<svg xmlns="http://www.w3.org/2000/svg"><desc>${"x".repeat(ASSET_BUDGET_BYTES)}</desc></svg>`;
    expect(withLogo(huge)).toEqual([expect.stringMatching(/logoImageUrl: .* is \d+ B, over the 16384 B budget$/)]);
    expect(checkWith({ ...aurora, logoImageUrl: "/brands/gungnir-aurora/logo.png" })).toContainEqual(
      "brand gungnir-aurora: logoImageUrl: /brands/gungnir-aurora/logo.png is not an .svg file",
    );
  });
});

describe("clients and redirect URIs", () => {
  const withClient = (redirectUris: string[], serviceId = "gungnir-aurora") =>
    checkBrands({ ...landed, clients: { ...clients, zz9clientid0001: { serviceId, redirectUris } } }).map(
      formatProblem,
    );

  test("refuses a client of no brand", () => {
    expect(withClient(["https://app.example/cb"], "no-such-brand")).toContain(
      "brand no-such-brand: clients.zz9clientid0001.serviceId: names no brand of the data",
    );
  });

  test("refuses http and unregistered schemes, and another brand's app scheme", () => {
    expect(withClient(["http://app.gungnir-aurora.example/cb"])).toContainEqual(
      expect.stringMatching(
        /^brand gungnir-aurora: clients\.zz9clientid0001\.redirectUris\[0\]: .*"http:", neither https/,
      ),
    );
    expect(withClient(["com.evil.app://cb"])).toContainEqual(
      expect.stringContaining("neither https nor a registered app scheme"),
    );
    expect(withClient(["jp.example.aurora://cb"], "izarra-astra")).toContainEqual(
      expect.stringContaining(`registered to gungnir-aurora's app`),
    );
  });

  test("accepts https and the brand's own registered scheme", () => {
    expect(withClient(["https://app.gungnir-aurora.example/cb", "jp.example.aurora://oauth/callback"])).toEqual([]);
    expect(clients[sampleClientIds.gungnir]?.redirectUris).toContain("jp.example.aurora://oauth/callback");
  });
});

describe("the brand schema", () => {
  test("names the brand and the field of a schema problem", () => {
    const bad = { ...aurora, colorPattern: { ...aurora.colorPattern, primary: "red" } };
    expect(checkWith(bad)).toContain("brand gungnir-aurora: colorPattern.primary: colour must be #rrggbb");
  });
});
