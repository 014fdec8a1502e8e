import { describe, expect, test } from "vitest";
import { buildBrandData } from "./build";
import type { BrandData } from "./schema";
import { brandDataModule } from "./vite-plugin";

/** The data a worker gets from the module `virtual:brand-data` serves. */
async function served(source: string): Promise<BrandData> {
  const module = (await import(`data:text/javascript,${encodeURIComponent(source)}`)) as { default: BrandData };
  return module.default;
}

describe("virtual:brand-data", () => {
  const data = buildBrandData();

  test("gives the worker the built data exactly, field order included, in the shared form", async () => {
    const source = brandDataModule(data);
    expect(JSON.stringify(await served(source))).toBe(JSON.stringify(data));
    expect(source).toContain("expandBrands");
    expect(source.length).toBeLessThan(JSON.stringify(data).length * 0.8);
  });

  test("gives each brand values of its own, not one object shared by every brand", async () => {
    const [first, second] = (await served(brandDataModule(data))).brands;
    expect(first?.mfaTypes).toEqual(second?.mfaTypes);
    expect(first?.mfaTypes).not.toBe(second?.mfaTypes);
  });

  test("writes the data whole where the brands' fields come in orders no one order holds", async () => {
    const [first, second, ...rest] = data.brands;
    if (!first || !second) throw new Error("fewer than two brands");
    const { displayName, ...others } = second;
    const reordered = { ...data, brands: [first, { ...others, displayName }, ...rest] };
    const source = brandDataModule(reordered);
    expect(source).not.toContain("expandBrands");
    expect(JSON.stringify(await served(source))).toBe(JSON.stringify(reordered));
  });
});
