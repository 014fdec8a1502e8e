import createDOMPurify, { type DOMPurify } from "dompurify";
import { JSDOM } from "jsdom";
import type { z } from "zod";
import { markPhrases, markRuns } from "../messages/vite-plugin.ts";
import { defaultBrand, rawBrands } from "./data/brands.ts";
import { clients } from "./data/clients.ts";
import {
  type AssociatedApps,
  allowedMfaTypes,
  type Brand,
  type BrandData,
  brandDataSchema,
  rawBrandDataSchema,
  type rawBrandSchema,
  type Support,
} from "./schema.ts";

const allowedTags = ["a", "br", "strong", "em", "span", "p", "ul", "li"];
const allowedAttributes = ["class", "href", "target"];
const allowedHref = /^(?:https:|mailto:|tel:)/i;

let purifier: DOMPurify | undefined;
let buildWindow: JSDOM["window"] | undefined;

// One jsdom window for the whole build: creating it is the slow part.
const jsdomWindow = () => {
  buildWindow ??= new JSDOM("").window;
  return buildWindow;
};

function supportHtmlPurifier(): DOMPurify {
  if (purifier) return purifier;
  purifier = createDOMPurify(jsdomWindow());
  purifier.addHook("uponSanitizeAttribute", (element, event) => {
    const onLink = element.nodeName === "A";
    if (event.attrName === "href") {
      event.keepAttr = onLink && allowedHref.test(event.attrValue.trim());
    } else if (event.attrName === "target") {
      event.keepAttr = onLink && event.attrValue === "_blank";
    }
  });
  // A new tab must not get a handle on this page (reverse tabnabbing) nor our URL.
  purifier.addHook("afterSanitizeAttributes", (element) => {
    if (element.hasAttribute("target")) element.setAttribute("rel", "noopener noreferrer");
  });
  return purifier;
}

/** Support-message markup as it may reach a page: only a few inline tags, safe links. */
export function sanitiseSupportHtml(html: string): string {
  return supportHtmlPurifier().sanitize(html, {
    ALLOWED_TAGS: allowedTags,
    ALLOWED_ATTR: allowedAttributes,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
}

/**
 * Sanitised support markup with the phrase boundaries of its text marked: only text nodes change (the text of the
 * whole message is segmented as one, so a phrase across a tag is seen whole); tags, links and their addresses stay.
 */
export function markSupportHtmlPhrases(html: string): string {
  const { document, NodeFilter } = jsdomWindow();
  const template = document.createElement("template");
  template.innerHTML = html;
  const walker = document.createTreeWalker(template.content, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
  const marked = markRuns(texts.map((text) => text.data));
  texts.forEach((text, index) => {
    text.data = marked[index] ?? text.data;
  });
  return template.innerHTML;
}

/**
 * The built data with the phrase boundaries of the brands' prose marked (docs/accessibility.md, "Japanese line
 * breaks"): the support contact's name, hours and messages. Names stay as they are: the display and provider names
 * are compared (a password must not contain them) and copied (an authenticator app's issuer), and a name is one
 * word that `word-break: keep-all` already keeps whole.
 */
export function withPhraseBreaks(data: BrandData): BrandData {
  const support = (contact: Support): Support => {
    const entries = Object.entries(contact).map(([field, value]) => {
      if (typeof value !== "string") return [field, value];
      if (field === "callCenterName" || field === "businessHour") return [field, markPhrases(value)];
      return [field, field.endsWith("MessageHtml") ? markSupportHtmlPhrases(value) : value];
    });
    return Object.fromEntries(entries) as Support;
  };
  const brand = (one: Brand): Brand => ({ ...one, support: support(one.support) });
  return { ...data, brands: data.brands.map(brand), defaultBrand: brand(data.defaultBrand) };
}

// Names a brand by its id rather than its index, so a data author finds the entry at once.
function issuePath(issue: z.core.$ZodIssue, raw: unknown): string {
  const [root, index, ...rest] = issue.path;
  if (root === "brands" && typeof index === "number") {
    const brands = (raw as { brands?: { id?: unknown }[] }).brands;
    const id = brands?.[index]?.id;
    const brand = typeof id === "string" ? `brands[${id}]` : `brands[${index}]`;
    return [brand, ...rest.map(String)].join(".");
  }
  return issue.path.map(String).join(".") || "(root)";
}

/** Leaves out what only the build reads (`associatedApps`, which become the association files). */
function sanitiseBrand({ support, associatedApps: _built, ...brand }: z.output<typeof rawBrandSchema>): Brand {
  const { defaultMessage, smsMessage, totpMessage, ...contact } = support;
  const sanitisedSupport: Support = { ...contact };
  if (defaultMessage !== undefined) sanitisedSupport.defaultMessageHtml = sanitiseSupportHtml(defaultMessage);
  if (smsMessage !== undefined) sanitisedSupport.smsMessageHtml = sanitiseSupportHtml(smsMessage);
  if (totpMessage !== undefined) sanitisedSupport.totpMessageHtml = sanitiseSupportHtml(totpMessage);
  return { ...brand, mfaTypes: allowedMfaTypes(brand.smsSecondFactor), support: sanitisedSupport };
}

function parseBrandData<T>(schema: z.ZodType<T>, data: unknown, stage: string): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => `  - ${issuePath(issue, data)}: ${issue.message}`);
  throw new Error(`Invalid brand data (${stage}):\n${lines.join("\n")}`);
}

/**
 * Both relations an Android app needs for passkeys in its webview: `get_login_creds`, and `handle_all_urls`, without
 * which Credential Manager refuses the sign-in (docs/passkeys.md, "The brands' apps"). The second also lets an app
 * with verified link filters for this host open its links, so every statement narrows it (`androidLinkRules`).
 */
const HANDLE_ALL_URLS = "delegate_permission/common.handle_all_urls";
const ANDROID_RELATIONS = [HANDLE_ALL_URLS, "delegate_permission/common.get_login_creds"];

/** One Dynamic App Links rule (Android 15+): a path pattern (`*` any characters); the first rule that matches wins. */
export interface DynamicAppLinkComponent {
  "/": string;
  exclude?: true;
}

/** The links the identity API mails (a password reset or initiation, an e-mail change): a brand's own pages. */
const mailedServicePages = ["forgotPassword", "initiatePassword", "changeEmail"];
/** The e-mail change mail's link, the same for every brand (worker/routes.tsx, `changeEmailLink`). */
const mailedSharedPaths = ["/auth/v1/user/email/confirm"];

/**
 * The Dynamic App Links rules of one Android app (docs/passkeys.md, "The brands' apps"). Every brand shares this
 * host, so an app that handles its links could open any brand's mailed links. An app without `handlesLinks`: no URL
 * of the host opens in it. One with it: the mailed links' paths are refused first, then only its own brands'
 * `/{serviceId}/…` pages are allowed, then everything else is refused. The rules only narrow the app's own intent
 * filters, and Android before 15 ignores them (the app's manifest must then declare no verified filter for the host).
 */
export function androidLinkRules(linkServiceIds: readonly string[]): DynamicAppLinkComponent[] {
  const refuseAll: DynamicAppLinkComponent = { "/": "*", exclude: true };
  if (linkServiceIds.length === 0) return [refuseAll];
  const serviceIds = [...new Set(linkServiceIds)].sort();
  const mailed = [
    ...mailedSharedPaths,
    ...serviceIds.flatMap((id) => mailedServicePages.map((page) => `/${id}/${page}*`)),
  ];
  return [
    ...mailed.map((path): DynamicAppLinkComponent => ({ "/": path, exclude: true })),
    ...serviceIds.map((id) => ({ "/": `/${id}/*` })),
    refuseAll,
  ];
}

/**
 * The association files of the sign-in host (docs/passkeys.md, "The brands' apps"): Apple's
 * `apple-app-site-association` with `webcredentials.apps` (the apps whose webviews may use this host's passkeys), and
 * Digital Asset Links' `assetlinks.json` with one statement per Android app, its certificates' fingerprints joined
 * when brands share the app, and its link rules (`androidLinkRules`). Sorted, so that the files change only when the
 * data does.
 */
export function associationFiles(brands: readonly { id: string; associatedApps?: AssociatedApps | undefined }[]): {
  appleAppSiteAssociation: string;
  assetLinks: string;
} {
  const iosApps = new Set<string>();
  const androidApps = new Map<string, { fingerprints: Set<string>; linkServiceIds: string[] }>();
  for (const { id, associatedApps } of brands) {
    for (const { appId } of associatedApps?.ios ?? []) iosApps.add(appId);
    for (const app of associatedApps?.android ?? []) {
      const entry = androidApps.get(app.package) ?? { fingerprints: new Set<string>(), linkServiceIds: [] };
      for (const fingerprint of app.sha256CertFingerprints) entry.fingerprints.add(fingerprint);
      if (app.handlesLinks) entry.linkServiceIds.push(id);
      androidApps.set(app.package, entry);
    }
  }
  const apple = { webcredentials: { apps: [...iosApps].sort() } };
  const android = [...androidApps]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([packageName, { fingerprints, linkServiceIds }]) => ({
      relation: ANDROID_RELATIONS,
      target: {
        namespace: "android_app",
        package_name: packageName,
        sha256_cert_fingerprints: [...fingerprints].sort(),
      },
      relation_extensions: {
        [HANDLE_ALL_URLS]: { dynamic_app_link_components: androidLinkRules(linkServiceIds) },
      },
    }));
  return { appleAppSiteAssociation: JSON.stringify(apple), assetLinks: JSON.stringify(android) };
}

/**
 * Validates the raw brand data, sanitises every support message and returns what the worker
 * gets through `virtual:brand-data`. Node only: DOMPurify needs jsdom here.
 */
export function buildBrandData(raw: unknown = { brands: rawBrands, default: defaultBrand, clients }): BrandData {
  const data = parseBrandData(rawBrandDataSchema, raw, "themes/data/");
  const built = {
    brands: data.brands.map(sanitiseBrand),
    defaultBrand: sanitiseBrand(data.default),
    clients: data.clients,
    associationFiles: associationFiles(data.brands),
  };
  return parseBrandData(brandDataSchema, built, "after sanitising the support messages");
}
