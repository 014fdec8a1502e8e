import { z } from "zod";

/**
 * What the site sees of the browser and the edge, sent with every login (docs/devices.md, "The contract"): the
 * device credential's digest, `request.cf`'s country and region, and the browser and OS it read from the
 * User-Agent, named from these two lists only.
 */
export const browsers = ["Chrome", "Edge", "Firefox", "Safari", "Samsung Internet", "アプリ", "その他"] as const;
export const operatingSystems = ["iOS", "Android", "Windows", "macOS", "Linux", "ChromeOS", "その他"] as const;

export type Browser = (typeof browsers)[number];
export type OperatingSystem = (typeof operatingSystems)[number];

/**
 * base64url(SHA-256(credential)) without padding: 43 characters, the last of which holds only 4 bits, so it is one
 * of 16. Anything else is not a digest a site computed.
 */
export const deviceDigestSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/, "must be a SHA-256 digest in base64url (43 characters)");

export const loginContextSchema = z.strictObject({
  device: deviceDigestSchema.optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code")
    .optional(),
  region: z
    .string()
    .min(1)
    .max(64)
    .regex(/^\P{Cc}*$/u, "must not hold control characters")
    .optional(),
  browser: z.enum(browsers),
  os: z.enum(operatingSystems),
});

export type LoginContext = z.infer<typeof loginContextSchema>;

/** The device and place a notice names: from a login's context, or from a device the account knows. */
export interface Whereabouts {
  browser: Browser;
  os: OperatingSystem;
  country: string | null;
  region: string | null;
}

export function whereaboutsOf(context: LoginContext): Whereabouts {
  return {
    browser: context.browser,
    os: context.os,
    country: context.country ?? null,
    region: context.region ?? null,
  };
}
