import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { JSDOM } from "jsdom";
import { sanitiseSupportHtml } from "./build";
import { defaultBrand, rawBrands } from "./data/brands";
import { appSchemes, clients } from "./data/clients";
import { type RawBrand, type RawClient, rawBrandDataSchema } from "./schema";
import { type ThemeSource, type ThemeTokens, themeTokens } from "./tokens";

// `npm run brands:check`: everything a new or changed brand must satisfy before a deploy, each problem
// naming the brand and the field. The schema is the build's own (themes/schema.ts); the rest is what a schema
// cannot see: the support markup the sanitiser would change, the asset files, the redirect URIs' schemes and the
// contrast of the colours as the pages' stylesheet really combines them.

export interface BrandProblem {
  /** The service id, `default` for the neutral theme, or `(data)` for the set as a whole. */
  brand: string;
  /** The field's path inside the brand (or `clients.<id>…`). */
  field: string;
  message: string;
}

export interface BrandCheckInput {
  brands: readonly RawBrand[];
  defaultBrand: RawBrand;
  clients: Readonly<Record<string, RawClient>>;
  /** The stylesheet the pages use (pages/layout/site.css). */
  css: string;
  /** An asset's bytes by its public path (`/brands/…`), or undefined when there is no such file. */
  readAsset: (path: string) => Buffer | undefined;
  /** Custom URL schemes and the brand whose app owns each (themes/data/clients.ts). */
  appSchemes: Readonly<Record<string, string>>;
}

/** What lands: the brand and client data, the pages' stylesheet and the files under public/ of the project at `root`. */
export function landedInput(root: string): BrandCheckInput {
  return {
    brands: rawBrands,
    defaultBrand,
    clients,
    appSchemes,
    css: readFileSync(join(root, "pages/layout/site.css"), "utf8"),
    readAsset: (path) => {
      const file = join(root, "public", ...path.split("/"));
      return existsSync(file) && statSync(file).isFile() ? readFileSync(file) : undefined;
    },
  };
}

/** SVG assets only, each at most this size: a logo or background is a few hundred bytes of vector. */
export const ASSET_BUDGET_BYTES = 16 * 1024;
/** WCAG 2.x AA for normal text. */
export const MIN_CONTRAST = 4.5;

// ── contrast ────────────────────────────────────────────────────────────────────────────────────────────────────

function luminance(hex: string): number {
  const [r = 0, g = 0, b = 0] = [1, 3, 5]
    .map((start) => parseInt(hex.slice(start, start + 2), 16) / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2.x contrast ratio of two `#rrggbb` colours. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Where text sits: the page (body) and the card. A rule that colours text but sets no background is read on both. */
const SURFACE_SELECTORS = ["body", ".card"];

/** A text colour and the background it is drawn on, as CSS values (`#rrggbb` or `var(--brand-…)`). */
export interface TextPair {
  selector: string;
  text: string;
  background: string;
}

interface CssRule {
  selector: string;
  declarations: Map<string, string>;
}

function cssRules(css: string): CssRule[] {
  const withoutComments = css.replace(/\/\*[\s\S]*?\*\//g, "");
  return [...withoutComments.matchAll(/([^{}]+)\{([^{}]*)\}/g)].map(([, selector = "", body = ""]) => ({
    selector: selector.trim(),
    declarations: new Map(
      body
        .split(";")
        .map((declaration) => declaration.split(":"))
        .filter((parts) => parts.length >= 2)
        .map(([name = "", ...value]) => [name.trim(), value.join(":").trim()]),
    ),
  }));
}

/** A colour the check can measure: `#rrggbb` (`#rgb` widened), or a brand token; anything else (none, rgba…) is not. */
function colourValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (/^#[0-9a-fA-F]{3}$/.test(value))
    return `#${[...value.slice(1)].map((digit) => digit + digit).join("")}`.toLowerCase();
  return /^(#[0-9a-fA-F]{6}|var\(--brand-[a-z-]+\))$/.test(value) ? value : undefined;
}
const backgroundOf = (rule: CssRule) =>
  colourValue(rule.declarations.get("background-color") ?? rule.declarations.get("background"));

/**
 * Every text-on-background pair of the stylesheet in which a brand token takes part: a rule's own `color` on its
 * own `background`, or, for a rule that sets only a brand `color`, that colour on each surface.
 */
export function brandTextPairs(css: string): TextPair[] {
  const rules = cssRules(css);
  const surfaces = SURFACE_SELECTORS.flatMap((selector) => {
    const background = rules.map((rule) => (rule.selector === selector ? backgroundOf(rule) : undefined)).find(Boolean);
    return background ? [{ selector, background }] : [];
  });
  return rules.flatMap((rule): TextPair[] => {
    const text = colourValue(rule.declarations.get("color"));
    if (!text) return [];
    const background = backgroundOf(rule);
    if (background)
      return text.includes("--brand-") || background.includes("--brand-")
        ? [{ selector: rule.selector, text, background }]
        : [];
    if (!text.includes("--brand-")) return [];
    return surfaces.map((surface) => ({
      selector: `${surface.selector} ${rule.selector}`,
      text,
      background: surface.background,
    }));
  });
}

function resolve(value: string, tokens: ThemeTokens): string {
  const token = /^var\((--brand-[a-z-]+)\)$/.exec(value)?.[1];
  return token ? (tokens[token as keyof ThemeTokens] ?? value) : value;
}

/** The data field a token comes from, for the message. */
const TOKEN_FIELDS: Record<string, string> = {
  "--brand-primary": "colorPattern.primary",
  "--brand-secondary": "colorPattern.secondary",
  "--brand-link": "colorPattern.link",
  "--brand-bg-secondary": "colorPattern.background.secondary",
};

function contrastProblems(id: string, brand: ThemeSource, fallback: ThemeSource, pairs: TextPair[]): BrandProblem[] {
  const tokens = themeTokens(brand, fallback);
  return pairs.flatMap(({ selector, text, background }) => {
    const ratio = contrastRatio(resolve(text, tokens), resolve(background, tokens));
    if (ratio >= MIN_CONTRAST) return [];
    const token = [text, background].map((value) => /--brand-[a-z-]+/.exec(value)?.[0]).find(Boolean) ?? "";
    return [
      {
        brand: id,
        field: TOKEN_FIELDS[token] ?? token,
        message: `text ${resolve(text, tokens)} on ${resolve(background, tokens)} (${selector}) has contrast ${ratio.toFixed(2)}:1, below ${MIN_CONTRAST}:1`,
      },
    ];
  });
}

// ── support markup ──────────────────────────────────────────────────────────────────────────────────────────────

let parserWindow: (Window & typeof globalThis) | undefined;
/** One jsdom window parses every message and asset: creating a window is the slow part. */
function parse(source: string, type: DOMParserSupportedType): Document {
  parserWindow ??= new JSDOM("").window;
  return new parserWindow.DOMParser().parseFromString(source, type);
}

/** The elements and attributes of a fragment, as `tag` and `tag@name=value`. */
function markupParts(html: string): Set<string> {
  const document = parse(`<body>${html}</body>`, "text/html");
  const parts = new Set<string>();
  for (const element of document.body.querySelectorAll("*")) {
    const tag = element.tagName.toLowerCase();
    parts.add(tag);
    for (const attribute of element.attributes) parts.add(`${tag}@${attribute.name}=${attribute.value}`);
  }
  return parts;
}

/** What the sanitiser would drop from a support message (it only ever adds `rel` to links that open a tab). */
function sanitiserProblems(id: string, support: RawBrand["support"]): BrandProblem[] {
  return (["defaultMessage", "smsMessage", "totpMessage"] as const).flatMap((key) => {
    const message = support[key];
    if (message === undefined) return [];
    const kept = markupParts(sanitiseSupportHtml(message));
    const dropped = [...markupParts(message)].filter((part) => !kept.has(part));
    return dropped.length
      ? [
          {
            brand: id,
            field: `support.${key}`,
            message: `the sanitiser (product §9 allow-list) removes ${dropped.join(", ")}`,
          },
        ]
      : [];
  });
}

// ── assets ──────────────────────────────────────────────────────────────────────────────────────────────────────

const EXTERNAL_URL = /url\(\s*["']?(?!#)[^)]*\)|@import/i;

// Elements that run script or embed other documents (an SVG opened on its own runs its scripts).
const UNSAFE_ELEMENTS = new Set(["script", "foreignobject", "handler", "iframe", "embed", "object"]);

const svgVerdicts = new Map<string, string | undefined>();

/** Why an SVG is not safe to serve as a brand asset, or undefined. */
export function unsafeSvg(source: string): string | undefined {
  if (!svgVerdicts.has(source)) svgVerdicts.set(source, svgVerdict(source));
  return svgVerdicts.get(source);
}

function svgVerdict(source: string): string | undefined {
  const document = parse(source, "image/svg+xml");
  const root = document.documentElement;
  if (document.getElementsByTagName("parsererror").length) return "is not well-formed SVG";
  if (root.localName !== "svg" || root.namespaceURI !== "http://www.w3.org/2000/svg") return "is not an SVG document";
  if (document.doctype) return "has a DOCTYPE (entities could pull in other files)";
  for (const node of document.childNodes)
    if (node.nodeType === node.PROCESSING_INSTRUCTION_NODE && node.nodeName === "xml-stylesheet")
      return "loads a stylesheet (<?xml-stylesheet?>)";
  for (const element of [root, ...root.querySelectorAll("*")]) {
    const name = element.localName.toLowerCase();
    if (UNSAFE_ELEMENTS.has(name)) return `contains a <${element.localName}>`;
    if (name === "style" && EXTERNAL_URL.test(element.textContent ?? ""))
      return "loads an external resource from <style>";
    const animated = element.getAttribute("attributeName") ?? "";
    if ((name === "set" || name.startsWith("animate")) && /href$/i.test(animated))
      return `animates a link (<${element.localName} attributeName="${animated}">)`;
    for (const attribute of element.attributes) {
      const attributeName = attribute.localName.toLowerCase();
      if (attributeName.startsWith("on")) return `has an event handler (${attribute.name} on <${name}>)`;
      if ((attributeName === "href" || attributeName === "src") && !attribute.value.trim().startsWith("#"))
        return `references ${attribute.value} (only #fragments inside the file are allowed)`;
      // A URL parser drops spaces and control characters: "java\tscript:" is still javascript:.
      if (/javascript:/i.test([...attribute.value].filter((character) => character > " ").join("")))
        return `has a javascript: URL (${attribute.name} on <${name}>)`;
      if (EXTERNAL_URL.test(attribute.value)) return `loads an external resource (${attribute.name} on <${name}>)`;
    }
  }
  return undefined;
}

const ASSET_FIELDS = ["logoImageUrl", "backgroundImageUrl", "favicon"] as const;

function assetProblems(brand: RawBrand, readAsset: BrandCheckInput["readAsset"]): BrandProblem[] {
  return ASSET_FIELDS.flatMap((field) => {
    const path = brand[field];
    const problem = (message: string) => [{ brand: brand.id, field, message: `${path} ${message}` }];
    if (!path.endsWith(".svg")) return problem("is not an .svg file");
    const bytes = readAsset(path);
    if (!bytes) return problem("does not exist under public/");
    if (bytes.length > ASSET_BUDGET_BYTES)
      return problem(`is ${bytes.length} B, over the ${ASSET_BUDGET_BYTES} B budget`);
    const unsafe = unsafeSvg(bytes.toString("utf8"));
    return unsafe ? problem(unsafe) : [];
  });
}

// ── clients ─────────────────────────────────────────────────────────────────────────────────────────────────────

function clientProblems(input: BrandCheckInput): BrandProblem[] {
  const known = new Set(input.brands.map(({ id }) => id));
  return Object.entries(input.clients).flatMap(([clientId, client]) => {
    if (!known.has(client.serviceId))
      return [
        { brand: client.serviceId, field: `clients.${clientId}.serviceId`, message: "names no brand of the data" },
      ];
    return client.redirectUris.flatMap((uri, index) => {
      const field = `clients.${clientId}.redirectUris[${index}]`;
      const scheme = URL.canParse(uri) ? new URL(uri).protocol.slice(0, -1) : undefined;
      if (scheme === "https") return [];
      const owner = scheme === undefined ? undefined : input.appSchemes[scheme];
      if (owner === client.serviceId) return [];
      const why =
        scheme === undefined
          ? "is not an absolute URL"
          : owner === undefined
            ? `uses the scheme "${scheme}:", neither https nor a registered app scheme`
            : `uses the scheme "${scheme}:", registered to ${owner}'s app`;
      return [{ brand: client.serviceId, field, message: `${uri} ${why}` }];
    });
  });
}

// ── the whole check ─────────────────────────────────────────────────────────────────────────────────────────────

function schemaProblems(input: BrandCheckInput): BrandProblem[] {
  const parsed = rawBrandDataSchema.safeParse({
    brands: input.brands,
    default: input.defaultBrand,
    clients: input.clients,
  });
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const [root, index, ...rest] = issue.path;
    if (root === "brands" && typeof index === "number")
      return {
        brand: input.brands[index]?.id ?? `brands[${index}]`,
        field: rest.map(String).join(".") || "(brand)",
        message: issue.message,
      };
    if (root === "default")
      return { brand: "default", field: rest.map(String).join(".") || "(brand)", message: issue.message };
    return { brand: "(data)", field: issue.path.map(String).join(".") || "(root)", message: issue.message };
  });
}

/** Every problem of the brand data, assets and clients; empty when all is well. */
export function checkBrands(input: BrandCheckInput): BrandProblem[] {
  const pairs = brandTextPairs(input.css);
  const everyBrand = [...input.brands, input.defaultBrand];
  return [
    ...schemaProblems(input),
    ...everyBrand.flatMap((brand) => [
      ...sanitiserProblems(brand.id, brand.support),
      ...assetProblems(brand, input.readAsset),
      ...contrastProblems(brand.id, brand, input.defaultBrand, pairs),
    ]),
    ...clientProblems(input),
  ];
}

export const formatProblem = ({ brand, field, message }: BrandProblem) => `brand ${brand}: ${field}: ${message}`;
