import { defaultBrand } from "./brands";
import type { Brand } from "./schema";
import { themeTokens } from "./tokens";

/**
 * The brand as CSS custom properties, for the nonce'd style element in the document head; `selector` scopes them to
 * one element instead (the dev-only brand gallery, one card per brand). Only our own fixed selectors are passed.
 */
export function themeCss(brand: Brand, selector = ":root"): string {
  return `${selector}{${Object.entries(themeTokens(brand, defaultBrand))
    .map(([name, value]) => `${name}:${value}`)
    .join(";")}}`;
}
