import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contrastRatio } from "../../themes/check";

// The engines' screenshots side by side (npm run gallery:engines) showed it: each engine draws a field's placeholder
// in its own grey (WebKit's is the faintest, Firefox's is the text colour at 54 % opacity), so the hint in the
// fields ("6桁の数字", "09012345678") read differently on an iPhone. The site sets its own.

const css = readFileSync("pages/layout/site.css", "utf8");

describe("field placeholders", () => {
  it("have one colour in every engine, fully opaque, readable on the field (4.5:1)", () => {
    const rule = /\.field-input::placeholder\{([^}]*)\}/.exec(css)?.[1] ?? "";
    const colour = /(?:^|;)color:(#[0-9a-f]{6})/.exec(rule)?.[1];
    expect(colour, "a placeholder colour").toBeDefined();
    expect(rule).toContain("opacity:1");
    const field = /\.field-input\{[^}]*background:(#[0-9a-f]{3,6})/.exec(css)?.[1] ?? "";
    expect(contrastRatio(colour ?? "#ffffff", field === "#fff" ? "#ffffff" : field)).toBeGreaterThanOrEqual(4.5);
  });
});
