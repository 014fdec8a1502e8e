import { describe, expect, test } from "vitest";
import { defaultBrand, rawBrands } from "./data/brands";
import { clients } from "./data/clients";
import { type RawBrand, type RawBrandData, rawBrandDataSchema, rawBrandSchema } from "./schema";

const validBrand = rawBrands.find(({ id }) => id === "gungnir-aurora") as RawBrand;
const data: RawBrandData = { brands: rawBrands, default: defaultBrand, clients };
const client = (serviceId: string) => ({ serviceId, redirectUris: [`https://app.${serviceId}.example/cb`] });

function brandIssues(change: (brand: RawBrand) => RawBrand): string[] {
  const result = rawBrandSchema.safeParse(change(structuredClone(validBrand)));
  return result.success ? [] : result.error.issues.map(({ path }) => path.join("."));
}

function dataIssues(change: (copy: RawBrandData) => RawBrandData): string[] {
  const result = rawBrandDataSchema.safeParse(change(structuredClone(data)));
  return result.success ? [] : result.error.issues.map(({ path, message }) => `${path.join(".")}: ${message}`);
}

describe("rawBrandSchema", () => {
  test("accepts a valid brand", () => {
    expect(brandIssues((brand) => brand)).toEqual([]);
  });

  test.each<[string, (brand: RawBrand) => RawBrand, string]>([
    ["a non-kebab id", (b) => ({ ...b, id: "Gungnir_Aurora" }), "id"],
    ["a display name over 40 characters", (b) => ({ ...b, displayName: "あ".repeat(41) }), "displayName"],
    ["a named colour", (b) => ({ ...b, colorPattern: { ...b.colorPattern, primary: "red" } }), "colorPattern.primary"],
    [
      "a colour that closes the style",
      (b) => ({ ...b, colorPattern: { ...b.colorPattern, link: "#000;}</style>" } }),
      "colorPattern.link",
    ],
    ["an image outside /brands/", (b) => ({ ...b, logoImageUrl: "https://evil.example/logo.svg" }), "logoImageUrl"],
    ["an image path climbing out", (b) => ({ ...b, favicon: "/brands/../secret.svg" }), "favicon"],
    ["a hand-written MFA type list (product §6 builds it)", (b) => ({ ...b, mfaTypes: ["TOTP"] }) as RawBrand, ""],
    ["an SMS flag that is not a boolean", (b) => ({ ...b, smsSecondFactor: "no" as never }), "smsSecondFactor"],
    [
      "a plain-http fallback URL",
      (b) => ({ ...b, fallBackUrls: { ...b.fallBackUrls, prod: "http://www.example/" } }),
      "fallBackUrls.prod",
    ],
    [
      "a javascript: fallback URL",
      (b) => ({ ...b, fallBackUrls: { ...b.fallBackUrls, dev: "javascript:alert(1)" } }),
      "fallBackUrls.dev",
    ],
    ["a consent target without partner", (b) => ({ ...b, consentTarget: true }), "partnerName"],
    ["a foreign phone format", (b) => ({ ...b, support: { ...b.support, tel: "+81 120 418 226" } }), "support.tel"],
    ["a phone with too few digits", (b) => ({ ...b, support: { ...b.support, tel: "0120-418-22" } }), "support.tel"],
    ["a bad e-mail", (b) => ({ ...b, support: { ...b.support, email: "support at example" } }), "support.email"],
    [
      "an unknown business-hour wording",
      (b) => ({ ...b, support: { ...b.support, businessHour: "24時間" as never } }),
      "support.businessHour",
    ],
    ["no contact", (b) => ({ ...b, support: { ...b.support, tel: undefined } }), "support.tel"],
    [
      "an advisor-managed service with a phone",
      (b) => ({ ...b, support: { ...b.support, advisorManaged: true } }),
      "support.advisorManaged",
    ],
    [
      "a message over 2000 characters",
      (b) => ({ ...b, support: { ...b.support, defaultMessage: "a".repeat(2001) } }),
      "support.defaultMessage",
    ],
    ["an unknown field", (b) => ({ ...b, fallbackUrls: b.fallBackUrls }) as RawBrand, ""],
  ])("rejects %s", (_, change, path) => {
    expect(brandIssues(change)).toContain(path);
  });
});

describe("rawBrandDataSchema", () => {
  test("accepts the real data", () => {
    expect(dataIssues((copy) => copy)).toEqual([]);
  });

  test("rejects a repeated service id", () => {
    expect(dataIssues((copy) => ({ ...copy, brands: [...copy.brands, validBrand] }))).toContain(
      'brands.45.id: duplicate service id "gungnir-aurora"',
    );
  });

  const schemeNotAllowed = "redirect URI scheme not allowed: https or the app's own reverse-domain scheme";

  test.each([
    ["javascript:alert(1)", schemeNotAllowed],
    ["http://app.example/callback", schemeNotAllowed],
    ["data:text/html,x", schemeNotAllowed],
    ["ftp://app.example/callback", schemeNotAllowed],
    ["intent://callback#Intent;scheme=x;end", schemeNotAllowed],
    ["https://app.example/callback#frag", "redirect URI must not carry a fragment"],
    ["/relative/callback", "redirect URI must be an absolute URL"],
  ])("rejects the redirect URI %j", (uri, message) => {
    const withUri = { serviceId: "client", redirectUris: [uri] };
    expect(dataIssues((copy) => ({ ...copy, clients: { ...copy.clients, badredirect0001: withUri } }))).toContain(
      `clients.badredirect0001.redirectUris.0: ${message}`,
    );
  });

  test("accepts an app's own reverse-domain scheme", () => {
    const withScheme = { serviceId: "client", redirectUris: ["jp.example.app://oauth/callback"] };
    expect(dataIssues((copy) => ({ ...copy, clients: { ...copy.clients, appscheme0001: withScheme } }))).toEqual([]);
  });

  test("rejects a client mapped to an unknown service", () => {
    expect(
      dataIssues((copy) => ({ ...copy, clients: { ...copy.clients, unknownclient0001: client("gungnir-nowhere") } })),
    ).toContain('clients.unknownclient0001: client maps to unknown service "gungnir-nowhere"');
  });

  test.each(["Upper-Case-Client", "short", "client id with spaces"])("rejects the client id %j", (clientId) => {
    expect(
      dataIssues((copy) => ({ ...copy, clients: { ...copy.clients, [clientId]: client("client") } })).length,
    ).toBeGreaterThan(0);
  });

  test("never passes a __proto__ client id on", () => {
    const parsed = rawBrandDataSchema.parse({ ...data, clients: JSON.parse('{"__proto__": "client"}') });
    expect(Object.keys(parsed.clients)).toEqual([]);
    expect(Object.getPrototypeOf(parsed.clients)).toBe(Object.prototype);
  });

  test("rejects no consent target and two consent targets", () => {
    const none = (copy: RawBrandData) => ({
      ...copy,
      brands: copy.brands.filter(({ consentTarget }) => !consentTarget),
    });
    expect(dataIssues((copy) => ({ ...none(copy), clients: {} }))).toContain(
      "brands: exactly one consent target expected, found 0",
    );
    const second = { ...validBrand, id: "gungnir-second", consentTarget: true, partnerName: "パートナー" };
    expect(dataIssues((copy) => ({ ...copy, brands: [...copy.brands, second] }))).toContain(
      "brands: exactly one consent target expected, found 2",
    );
  });

  test("rejects a second brand in system transfer, and password rules other than standard or relaxed", () => {
    const second = { ...validBrand, id: "gungnir-second", transfer: { earlierServiceName: "旧サービス" } };
    expect(dataIssues((copy) => ({ ...copy, brands: [...copy.brands, second] }))).toContain(
      "brands: at most one brand may be in system transfer",
    );
    expect(rawBrandSchema.safeParse({ ...validBrand, passwordRules: "lenient" }).success).toBe(false);
    expect(rawBrandSchema.parse(validBrand).passwordRules).toBe("standard");
  });

  test("offers passkeys unless the data says otherwise, and knows no value but off, offered and required", () => {
    expect(rawBrandSchema.parse(validBrand).passkeys).toBe("offered");
    for (const passkeys of ["off", "offered", "required"] as const)
      expect(rawBrandSchema.parse({ ...validBrand, passkeys }).passkeys).toBe(passkeys);
    expect(rawBrandSchema.safeParse({ ...validBrand, passkeys: "on" }).success).toBe(false);
    expect(rawBrandSchema.safeParse({ ...validBrand, passkeys: true }).success).toBe(false);
  });

  test("rejects a default brand that is a service or a consent target", () => {
    expect(dataIssues((copy) => ({ ...copy, default: { ...copy.default, id: "client" } }))).toContain(
      'default.id: the default brand must have the id "default", used by no service',
    );
    expect(
      dataIssues((copy) => ({ ...copy, default: { ...copy.default, consentTarget: true, partnerName: "x" } })),
    ).toContain("default.consentTarget: the default brand cannot be a consent target");
  });
});

describe("the brands' associated apps", () => {
  const withApps = (id: string, apps: RawBrand["associatedApps"]) => (copy: RawBrandData) => ({
    ...copy,
    brands: copy.brands.map((brand) => (brand.id === id ? { ...brand, associatedApps: apps } : brand)),
  });
  const fingerprint = Array.from({ length: 32 }, () => "AB").join(":");

  test.each([
    ["an iOS app without its team ID", { ios: [{ appId: "jp.example.app" }] }, "ios.0.appId"],
    ["an iOS app with a short team ID", { ios: [{ appId: "ABC.jp.example.app" }] }, "ios.0.appId"],
    [
      "an Android package of one word",
      { android: [{ package: "app", sha256CertFingerprints: [fingerprint] }] },
      "android.0.package",
    ],
    [
      "a lower-case fingerprint",
      { android: [{ package: "jp.example.app", sha256CertFingerprints: [fingerprint.toLowerCase()] }] },
      "android.0.sha256CertFingerprints.0",
    ],
    [
      "a SHA-1 fingerprint",
      { android: [{ package: "jp.example.app", sha256CertFingerprints: [fingerprint.slice(0, 59)] }] },
      "android.0.sha256CertFingerprints.0",
    ],
    [
      "an Android app without a fingerprint",
      { android: [{ package: "jp.example.app", sha256CertFingerprints: [] }] },
      "android.0.sha256CertFingerprints",
    ],
  ])("refuses %s", (_name, apps, path) => {
    expect(dataIssues(withApps("izarra-astra", apps as RawBrand["associatedApps"])).join("\n")).toContain(
      `brands.${rawBrands.findIndex(({ id }) => id === "izarra-astra")}.associatedApps.${path}`,
    );
  });

  test("refuses an app two brands list unless both mark it shared", () => {
    const lemon = { ios: [{ appId: "GNGN000002.jp.example.gungnir" }] };
    expect(dataIssues(withApps("liqueur-lemon", lemon))).toContain(
      "brands: iOS app GNGN000002.jp.example.gungnir is listed by gungnir-aurora, gungnir-hayate, liqueur-lemon: mark it shared in each, or list it once",
    );
    const shared = { ios: [{ appId: "GNGN000002.jp.example.gungnir", shared: true }] };
    expect(dataIssues(withApps("liqueur-lemon", shared))).toEqual([]);
  });

  test("refuses apps on the default brand", () => {
    const apps = { ios: [{ appId: "ABCDE12345.jp.example.neutral" }] };
    expect(dataIssues((copy) => ({ ...copy, default: { ...copy.default, associatedApps: apps } }))).toContain(
      "default.associatedApps: the default brand has no apps",
    );
  });
});
