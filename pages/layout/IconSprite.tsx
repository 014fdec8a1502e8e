import type { IconName } from "../../islands/icons";

/** Each icon's shapes, in a 24 × 24 box, stroked. */
const shapes: Record<IconName, string> = {
  email: '<rect x="3" y="5" width="18" height="14" rx="2"></rect><path d="m3 7 9 6 9-6"></path>',
  key: '<circle cx="8" cy="15" r="4"></circle><path d="m10.8 12.2 8.2-8.2M16 7l2 2M14 9l2 2"></path>',
  eye: '<path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12Z"></path><circle cx="12" cy="12" r="3"></circle>',
  eyeOff:
    '<path d="M3 3l18 18M10.6 5.1A10.4 10.4 0 0 1 12 5c6.4 0 10 7 10 7a17 17 0 0 1-3.2 4.1M6.6 6.6A17.3 17.3 0 0 0 2 12s3.6 7 10 7a9.8 9.8 0 0 0 5.4-1.6"></path><path d="M9.9 9.9a3 3 0 0 0 4.2 4.2"></path>',
};

// The symbols as markup, made once per isolate: React would write the same ~40 attributes again on every page with
// a field.
const symbols = {
  __html: Object.entries(shapes)
    .map(
      ([name, shape]) =>
        `<symbol id="icon-${name}" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.8">${shape}</symbol>`,
    )
    .join(""),
};

/** The field icons' symbols, once per page that has a field (islands/icons.tsx draws them with `<use>`). */
export function IconSprite() {
  return (
    // biome-ignore lint/security/noDangerouslySetInnerHtml: constant markup of this module, no request data
    <svg className="visually-hidden" aria-hidden="true" focusable="false" dangerouslySetInnerHTML={symbols} />
  );
}
