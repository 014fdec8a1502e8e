// Kept apart from schema.ts so that themes/css.ts can check values without bundling zod's brand schemas.

/** A `#rrggbb` colour; the theme CSS accepts nothing else. */
export const hexColourPattern = /^#[0-9a-fA-F]{6}$/;

/** A static brand asset served from `public/brands/`; the theme CSS accepts nothing else. */
export const brandAssetPathPattern = /^\/brands\/[a-z0-9/_.-]+$/;
