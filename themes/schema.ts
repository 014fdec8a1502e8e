import { z } from "zod";
import { brandAssetPathPattern, hexColourPattern } from "./cssValues.ts";

/** The business-hour wordings of product §9, exactly as the support modal shows them. */
export const businessHours = [
  "平日 8:30〜17:30（祝日・年末年始を除く）",
  "平日 9:00〜17:00（祝日・年末年始を除く）",
  "平日 9時〜17時（祝日・年末年始を除く）",
  "平日 10:00〜17:00（祝日・年末年始を除く）",
] as const;

export const mfaTypeSchema = z.enum(["TOTP", "SMS", "NONE"]);
export type MfaType = z.infer<typeof mfaTypeSchema>;

/**
 * product §6: a brand allows TOTP, SMS and NONE ('set up later'), except the ones whose data says
 * `smsSecondFactor: false` (the ASTOMO-like brand and the default theme), which allow TOTP and NONE. A brand's
 * `mfaTypes` is built from this rule, so no brand's list can drift from it.
 */
export function allowedMfaTypes(smsSecondFactor: boolean): MfaType[] {
  return smsSecondFactor ? ["TOTP", "SMS", "NONE"] : ["TOTP", "NONE"];
}

const serviceIdSchema = z
  .string()
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "service id must be kebab-case");

// Opaque ids issued by the OAuth2 server.
const clientIdSchema = z
  .string()
  .min(8)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, "client id must be lowercase alphanumerics or hyphens");

const nameSchema = z.string().trim().min(1).max(40);
const hexColourSchema = z.string().regex(hexColourPattern, "colour must be #rrggbb");
const httpsUrlSchema = z.url({ protocol: /^https$/ }).max(200);
const messageSchema = z.string().min(1).max(2000);

const brandAssetPathSchema = z
  .string()
  .max(200)
  .regex(brandAssetPathPattern, "asset path must be /brands/… with lowercase letters, digits, / _ . -")
  .refine((path) => !path.split("/").includes(".."), "asset path must not climb out of /brands/");

const mfaTypesSchema = z
  .array(mfaTypeSchema)
  .min(1)
  .refine((types) => new Set(types).size === types.length, "MFA types must be unique");

const supportFields = {
  callCenterName: z.string().trim().min(1).max(60),
  tel: z
    .string()
    .regex(/^0\d{1,4}-\d{1,4}-\d{3,4}$/, "tel must be a Japanese number like 0120-123-456")
    .refine((tel) => [10, 11].includes(tel.replace(/-/g, "").length), "tel must have 10 or 11 digits")
    .optional(),
  email: z.email().max(254).optional(),
  businessHour: z.enum(businessHours),
  advisorManaged: z.boolean(),
};

// Advisor-managed customers are only told to ask their advisor, so a phone or e-mail would never show.
function checkContact(
  support: { advisorManaged: boolean; tel?: string | undefined; email?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  const hasContact = support.tel !== undefined || support.email !== undefined;
  if (support.advisorManaged && hasContact) {
    ctx.addIssue({
      code: "custom",
      message: "advisor-managed support carries no tel or email",
      path: ["advisorManaged"],
    });
  }
  if (!support.advisorManaged && !hasContact) {
    ctx.addIssue({ code: "custom", message: "support needs a tel or an email", path: ["tel"] });
  }
}

export const rawSupportSchema = z
  .strictObject({
    ...supportFields,
    defaultMessage: messageSchema.optional(),
    smsMessage: messageSchema.optional(),
    totpMessage: messageSchema.optional(),
  })
  .superRefine(checkContact);

/** Support contact as pages get it: the `*Html` fields are sanitised markup (see build.ts). */
export const supportSchema = z
  .strictObject({
    ...supportFields,
    defaultMessageHtml: messageSchema.optional(),
    smsMessageHtml: messageSchema.optional(),
    totpMessageHtml: messageSchema.optional(),
  })
  .superRefine(checkContact);

const brandFields = {
  id: serviceIdSchema,
  displayName: nameSchema,
  colorPattern: z.strictObject({
    primary: hexColourSchema,
    secondary: hexColourSchema,
    link: hexColourSchema,
    background: z.strictObject({ secondary: hexColourSchema }).optional(),
  }),
  backgroundImageUrl: brandAssetPathSchema,
  logoImageUrl: brandAssetPathSchema,
  favicon: brandAssetPathSchema,
  /** product §6: false for the brands that offer no SMS second factor (TOTP and NONE only); see allowedMfaTypes. */
  smsSecondFactor: z.boolean().default(true),
  fallBackUrls: z.strictObject({ dev: httpsUrlSchema, stg: httpsUrlSchema, prod: httpsUrlSchema }),
  providerName: nameSchema,
  partnerName: nameSchema.optional(),
  /** The partner-branded service: consent screen, no scope, no e-mail-verified or MFA checks. */
  consentTarget: z.boolean(),
  /**
   * product §5: "relaxed" skips the symbol and allowed-character checks of passwords (one brand has it);
   * the worker, the islands and the emulator all read it from here.
   */
  passwordRules: z.enum(["standard", "relaxed"]).default("standard"),
  /**
   * Passkeys (docs/passkeys.md): "offered" shows passkey sign-in and offers enrolment; "required" treats every login
   * as if the app asked for a phishing-resistant one (acr `phr`), and keeps the last passkey; "off" shows none. The
   * environment's PASSKEYS switch is above it: while that is off, no brand shows any.
   */
  passkeys: z.enum(["off", "offered", "required"]).default("offered"),
  /**
   * How an operation pushed by the brand's app is approved (docs/operations.md, "On the site"): "passkey" (the
   * default) only; "passkeyOrCode" is the JSDA guideline's temporary alternative for a brand that publishes its move
   * to passkeys, not specified yet: the identity API refuses every other method (operation_requires_passkey), so for
   * now such a brand's screen is the same. No brand needs it today.
   */
  operationConfirmation: z.enum(["passkey", "passkeyOrCode"]).default("passkey"),
  /**
   * product §8 system transfer: this brand's accounts are moving in from an earlier service. Its users are mailed
   * a password-initiation link; users of other brands are told that service's name. At most one brand has it.
   */
  transfer: z.strictObject({ earlierServiceName: nameSchema }).optional(),
  /**
   * product §1/§9 native app update prompt (docs/native-bridge.md): inside this brand's app, a version older than
   * `recommendedVersion` is asked, at most once in 24 hours, to update from its platform's store.
   */
  app: z
    .strictObject({
      recommendedVersion: z
        .string()
        .regex(/^\d{1,6}(?:\.\d{1,6}){0,3}$/, "version must be 1 to 4 dot-separated numbers"),
      storeUrls: z.strictObject({ ios: httpsUrlSchema, android: httpsUrlSchema }),
    })
    .optional(),
};

function checkConsentTarget(
  brand: { consentTarget: boolean; partnerName?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (brand.consentTarget && brand.partnerName === undefined) {
    ctx.addIssue({ code: "custom", message: "a consent target needs a partnerName", path: ["partnerName"] });
  }
}

/** An iOS app as Apple's association file names it: its team ID (10 characters), a dot, its bundle ID. */
const iosAppIdSchema = z
  .string()
  .max(160)
  .regex(/^[A-Z0-9]{10}\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/, "an iOS app is TEAMID.bundle.id (10-character team ID)");
/** An Android application ID (package name): two or more dot-separated Java identifiers. */
const androidPackageSchema = z
  .string()
  .max(160)
  .regex(/^[a-zA-Z][a-zA-Z0-9_]*(?:\.[a-zA-Z][a-zA-Z0-9_]*)+$/, "an Android package is like jp.example.app");
/** A signing certificate's SHA-256 fingerprint as Digital Asset Links write it: 32 upper-case hex bytes with colons. */
const certificateFingerprintSchema = z
  .string()
  .regex(/^(?:[0-9A-F]{2}:){31}[0-9A-F]{2}$/, "a SHA-256 fingerprint is 32 upper-case hex bytes joined by colons");

/**
 * The brand's apps whose webviews use the sign-in host's passkeys (docs/passkeys.md, "The brands' apps"): listed in
 * the host's `/.well-known/apple-app-site-association` (`webcredentials`) and `/.well-known/assetlinks.json`. An app
 * that two brands share is marked `shared` in each; otherwise an app belongs to one brand.
 *
 * `handlesLinks` (Android, default false): the app may open this host's links itself (Android App Links). Every
 * brand shares the host, so without it the app's statement carries a rule that sends every link to the browser
 * (Android 15+); with it, the app opens only its own brands' `/{serviceId}/…` pages, never a mailed reset,
 * initiation or e-mail-change link (themes/build.ts, `androidLinkRules`). A shared app's listings must agree on it.
 */
export const associatedAppsSchema = z.strictObject({
  ios: z
    .array(z.strictObject({ appId: iosAppIdSchema, shared: z.boolean().default(false) }))
    .max(10)
    .default([]),
  android: z
    .array(
      z.strictObject({
        package: androidPackageSchema,
        sha256CertFingerprints: z.array(certificateFingerprintSchema).min(1).max(5),
        shared: z.boolean().default(false),
        handlesLinks: z.boolean().default(false),
      }),
    )
    .max(10)
    .default([]),
});
export type AssociatedApps = z.infer<typeof associatedAppsSchema>;

export const rawBrandSchema = z
  .strictObject({ ...brandFields, support: rawSupportSchema, associatedApps: associatedAppsSchema.optional() })
  .superRefine(checkConsentTarget);
/** The allowed second factors as pages and routes read them: built from `smsSecondFactor` by the product §6 rule. */
function checkMfaTypes(brand: { smsSecondFactor: boolean; mfaTypes: MfaType[] }, ctx: z.RefinementCtx): void {
  if (brand.mfaTypes.join() !== allowedMfaTypes(brand.smsSecondFactor).join()) {
    ctx.addIssue({ code: "custom", message: "mfaTypes must follow the product §6 rule", path: ["mfaTypes"] });
  }
}

export const brandSchema = z
  .strictObject({ ...brandFields, mfaTypes: mfaTypesSchema, support: supportSchema })
  .superRefine(checkConsentTarget)
  .superRefine(checkMfaTypes);

/**
 * The schemes a redirect URI may have (architecture §8): https, or an app's own private-use scheme, which
 * RFC 8252 §7.1 has in reverse-domain form (`jp.example.app:`). Nothing else: not `http:`, `javascript:`,
 * `data:`, nor a one-word scheme such as `intent:` that some other app may also claim.
 */
function isRegisteredScheme(protocol: string): boolean {
  return protocol === "https:" || /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/.test(protocol);
}

/** An app's redirect URI: https, or the app's own scheme (`jp.example.app://…`); no fragment. */
const redirectUriSchema = z
  .string()
  .max(512)
  .refine((uri) => URL.canParse(uri), "redirect URI must be an absolute URL")
  .refine(
    (uri) => !URL.canParse(uri) || isRegisteredScheme(new URL(uri).protocol),
    "redirect URI scheme not allowed: https or the app's own reverse-domain scheme",
  )
  .refine((uri) => !uri.includes("#"), "redirect URI must not carry a fragment");

/** An OAuth2 client: the brand it belongs to and its app's registered redirect URIs. */
const clientSchema = z.strictObject({
  serviceId: serviceIdSchema,
  redirectUris: z.array(redirectUriSchema).min(1).max(10),
});
export type RawClient = z.input<typeof clientSchema>;
export type Client = z.infer<typeof clientSchema>;

const clientMapSchema = z.record(clientIdSchema, clientSchema);

interface BrandSet {
  brands: readonly { id: string; consentTarget: boolean; transfer?: unknown }[];
  defaultBrand: { id: string; consentTarget: boolean };
  clients: Record<string, { serviceId: string }>;
}

function checkBrandSet({ brands, defaultBrand, clients }: BrandSet, defaultKey: string, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  brands.forEach((brand, index) => {
    if (seen.has(brand.id)) {
      ctx.addIssue({ code: "custom", message: `duplicate service id "${brand.id}"`, path: ["brands", index, "id"] });
    }
    seen.add(brand.id);
  });
  for (const [clientId, { serviceId }] of Object.entries(clients)) {
    if (!seen.has(serviceId)) {
      ctx.addIssue({
        code: "custom",
        message: `client maps to unknown service "${serviceId}"`,
        path: ["clients", clientId],
      });
    }
  }
  const consentTargets = brands.filter((brand) => brand.consentTarget).length;
  if (consentTargets !== 1) {
    ctx.addIssue({
      code: "custom",
      message: `exactly one consent target expected, found ${consentTargets}`,
      path: ["brands"],
    });
  }
  if (brands.filter((brand) => brand.transfer !== undefined).length > 1) {
    ctx.addIssue({ code: "custom", message: "at most one brand may be in system transfer", path: ["brands"] });
  }
  if (defaultBrand.id !== "default" || seen.has(defaultBrand.id)) {
    ctx.addIssue({
      code: "custom",
      message: 'the default brand must have the id "default", used by no service',
      path: [defaultKey, "id"],
    });
  }
  if (defaultBrand.consentTarget) {
    ctx.addIssue({
      code: "custom",
      message: "the default brand cannot be a consent target",
      path: [defaultKey, "consentTarget"],
    });
  }
}

/**
 * An app listed by two brands must be marked `shared` in both, and an Android app's listings must agree on
 * `handlesLinks`; the default brand lists none.
 */
function checkAssociatedApps(
  brands: readonly { id: string; associatedApps?: AssociatedApps | undefined }[],
  defaultBrand: { associatedApps?: AssociatedApps | undefined },
  ctx: z.RefinementCtx,
): void {
  if (defaultBrand.associatedApps !== undefined)
    ctx.addIssue({ code: "custom", message: "the default brand has no apps", path: ["default", "associatedApps"] });
  const listed = new Map<string, { brand: string; shared: boolean }[]>();
  for (const brand of brands) {
    const apps = brand.associatedApps;
    if (!apps) continue;
    const entries = [
      ...apps.ios.map(({ appId, shared }) => [`iOS app ${appId}`, shared] as const),
      ...apps.android.map((app) => [`Android package ${app.package}`, app.shared] as const),
    ];
    for (const [key, shared] of entries) listed.set(key, [...(listed.get(key) ?? []), { brand: brand.id, shared }]);
  }
  for (const [key, owners] of listed) {
    if (owners.length > 1 && owners.some(({ shared }) => !shared))
      ctx.addIssue({
        code: "custom",
        message: `${key} is listed by ${owners.map(({ brand }) => brand).join(", ")}: mark it shared in each, or list it once`,
        path: ["brands"],
      });
  }
  const handlesLinks = new Map<string, Set<boolean>>();
  for (const app of brands.flatMap((brand) => brand.associatedApps?.android ?? []))
    handlesLinks.set(app.package, new Set([...(handlesLinks.get(app.package) ?? []), app.handlesLinks]));
  for (const [appPackage, values] of handlesLinks) {
    if (values.size > 1)
      ctx.addIssue({
        code: "custom",
        message: `Android package ${appPackage}: every brand that lists it must give the same handlesLinks`,
        path: ["brands"],
      });
  }
}

/** What `themes/data/` holds: raw support messages, the default brand under `default`. */
export const rawBrandDataSchema = z
  .strictObject({
    brands: z.array(rawBrandSchema).min(1).max(200),
    default: rawBrandSchema,
    clients: clientMapSchema,
  })
  .superRefine((data, ctx) => checkBrandSet({ ...data, defaultBrand: data.default }, "default", ctx))
  .superRefine((data, ctx) => checkAssociatedApps(data.brands, data.default, ctx));

/**
 * The sign-in host's association files, made at build time from every brand's `associatedApps` (JSON text, served as
 * it is): Apple's `apple-app-site-association` and Google's Digital Asset Links `assetlinks.json`.
 */
const associationFilesSchema = z.strictObject({
  appleAppSiteAssociation: z.string(),
  assetLinks: z.string(),
});

/** What the worker gets through `virtual:brand-data`. */
export const brandDataSchema = z
  .strictObject({
    brands: z.array(brandSchema).min(1).max(200),
    defaultBrand: brandSchema,
    clients: clientMapSchema,
    associationFiles: associationFilesSchema,
  })
  .superRefine((data, ctx) => checkBrandSet(data, "defaultBrand", ctx));

export type Support = z.infer<typeof supportSchema>;
export type Brand = z.infer<typeof brandSchema>;
/** A brand app's update rule: the version it should be on and its stores. */
export type AppRelease = NonNullable<Brand["app"]>;
export type BrandData = z.infer<typeof brandDataSchema>;
export type RawBrand = z.input<typeof rawBrandSchema>;
export type RawBrandData = z.input<typeof rawBrandDataSchema>;
