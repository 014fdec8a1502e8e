import { defaultBrand } from "./brands";
import type { Brand } from "./schema";
import { themeTokens } from "./tokens";

/** The brand as CSS custom properties, for the nonce'd style element in the document head. */
export function themeCss(brand: Brand): string {
  return `:root{${Object.entries(themeTokens(brand, defaultBrand))
    .map(([name, value]) => `${name}:${value}`)
    .join(";")}}`;
}
