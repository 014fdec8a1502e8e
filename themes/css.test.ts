import { describe, expect, test } from "vitest";
import { brandById, defaultBrand } from "./brands";
import { themeCss } from "./css";
import type { Brand } from "./schema";

function customProperties(css: string): Record<string, string> {
  const body = /^:root\{(.*)\}$/.exec(css)?.[1];
  if (body === undefined) throw new Error(`not a :root block: ${css}`);
  return Object.fromEntries(body.split(";").map((declaration) => declaration.split(/:(.*)/s).slice(0, 2)));
}

const hisui = brandById("gungnir-hisui") as Brand;
const aurora = brandById("gungnir-aurora") as Brand;

describe("themeCss", () => {
  test("sets the brand colours and background image", () => {
    expect(customProperties(themeCss(hisui))).toEqual({
      "--brand-primary": "#0f6b4f",
      "--brand-secondary": "#9ad8c0",
      "--brand-link": "#0c6446",
      "--brand-bg-secondary": "#eef7f3",
      "--brand-bg-image": 'url("/brands/gungnir-hisui/background.svg")',
    });
  });

  test("tints the primary colour when the brand has no background colour", () => {
    expect(aurora.colorPattern.background).toBeUndefined();
    expect(customProperties(themeCss(aurora))["--brand-bg-secondary"]).toBe("#edf1f4");
  });

  test.each([
    ["a style breakout", "#000;}</style><script>alert(1)</script>"],
    ["a named colour", "red"],
    ["a CSS function", "rgb(0,0,0)"],
    ["an expression", "expression(alert(1))"],
  ])("falls back to the default colours on %s", (_, bad) => {
    const hostile = {
      ...aurora,
      colorPattern: { primary: bad, secondary: bad, link: bad, background: { secondary: bad } },
    };
    const properties = customProperties(themeCss(hostile));
    expect(properties["--brand-primary"]).toBe(defaultBrand.colorPattern.primary);
    expect(properties["--brand-secondary"]).toBe(defaultBrand.colorPattern.secondary);
    expect(properties["--brand-link"]).toBe(defaultBrand.colorPattern.link);
    expect(properties["--brand-bg-secondary"]).toMatch(/^#[0-9a-f]{6}$/);
  });

  test.each([
    "https://evil.example/bg.svg",
    '/brands/x/bg.svg") ; background:url("https://evil.example',
    "/brands/x/</style>",
    "/brands/x/bg.svg'",
    "/brands/x/bg.svg\\",
    "/brands/X/BG.SVG",
  ])("falls back to the default background on %j", (bad) => {
    const css = themeCss({ ...aurora, backgroundImageUrl: bad });
    expect(customProperties(css)["--brand-bg-image"]).toBe(`url("${defaultBrand.backgroundImageUrl}")`);
  });

  test("emits only safe characters for every real brand", () => {
    for (const brand of [defaultBrand, hisui, aurora]) {
      expect(themeCss(brand)).toMatch(/^:root\{[-a-z0-9:;#()"/._]*\}$/);
    }
  });
});
