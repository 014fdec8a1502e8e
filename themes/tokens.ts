import { brandAssetPathPattern, hexColourPattern } from "./cssValues";

// The theme tokens a page gets for its brand: the custom properties pages/layout/site.css reads. Computed here
// from the brand's data alone (no brand registry), so the brand check (themes/check.ts) measures the very values
// the worker writes into each page (themes/css.ts).

/** What the tokens are made of: a brand's colours and background image. */
export interface ThemeSource {
  colorPattern: { primary: string; secondary: string; link: string; background?: { secondary: string } | undefined };
  backgroundImageUrl: string;
}

export type ThemeTokens = Record<
  "--brand-primary" | "--brand-secondary" | "--brand-link" | "--brand-bg-secondary" | "--brand-bg-image",
  string
>;

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

/** The brand's tokens; `fallback` (the neutral theme) stands in for any value that is not what the CSS accepts. */
export function themeTokens(brand: ThemeSource, fallback: ThemeSource): ThemeTokens {
  const primary = colour(brand.colorPattern.primary, fallback.colorPattern.primary);
  return {
    "--brand-primary": primary,
    "--brand-secondary": colour(brand.colorPattern.secondary, fallback.colorPattern.secondary),
    "--brand-link": colour(brand.colorPattern.link, fallback.colorPattern.link),
    "--brand-bg-secondary": colour(brand.colorPattern.background?.secondary, lightTint(primary)),
    "--brand-bg-image": assetUrl(brand.backgroundImageUrl, fallback.backgroundImageUrl),
  };
}
