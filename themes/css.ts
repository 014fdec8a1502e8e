import { defaultBrand } from "./brands";
import { brandAssetPathPattern, hexColourPattern } from "./cssValues";
import type { Brand } from "./schema";

// The data is validated at build; these checks only make sure nothing can break out of the style element.
function colour(value: string | undefined, fallback: string): string {
  return value !== undefined && hexColourPattern.test(value) ? value : fallback;
}

function assetUrl(path: string, fallback: string): string {
  return `url("${brandAssetPathPattern.test(path) ? path : fallback}")`;
}

// A page background close to white that still carries the brand's hue: 8 % primary over white.
function lightTint(hex: string): string {
  const channels = [1, 3, 5].map((start) => parseInt(hex.slice(start, start + 2), 16));
  return `#${channels
    .map((channel) =>
      Math.round(255 - (255 - channel) * 0.08)
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

/**
 * The brand as CSS custom properties, for the nonce'd style element in the document head; `selector` scopes them to
 * one element instead (the dev-only brand gallery, one card per brand). Only our own fixed selectors are passed.
 */
export function themeCss(brand: Brand, selector = ":root"): string {
  const fallback = defaultBrand.colorPattern;
  const primary = colour(brand.colorPattern.primary, fallback.primary);
  const properties = {
    "--brand-primary": primary,
    "--brand-secondary": colour(brand.colorPattern.secondary, fallback.secondary),
    "--brand-link": colour(brand.colorPattern.link, fallback.link),
    "--brand-bg-secondary": colour(brand.colorPattern.background?.secondary, lightTint(primary)),
    "--brand-bg-image": assetUrl(brand.backgroundImageUrl, defaultBrand.backgroundImageUrl),
  };
  return `${selector}{${Object.entries(properties)
    .map(([name, value]) => `${name}:${value}`)
    .join(";")}}`;
}
