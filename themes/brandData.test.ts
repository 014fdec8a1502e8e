import { describe, expect, test } from "vitest";
import { buildBrandData } from "./build";
import { defaultBrand, rawBrands } from "./data/brands";
import { clients, sampleClientIds } from "./data/clients";
import { brandDataSchema, type RawBrand, rawBrandDataSchema } from "./schema";

const everyBrand: RawBrand[] = [...rawBrands, defaultBrand];

function brand(id: string): RawBrand {
  const found = rawBrands.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no brand ${id}`);
  return found;
}

describe("the brand data", () => {
  test("passes the raw schema and builds", () => {
    expect(rawBrandDataSchema.safeParse({ brands: rawBrands, default: defaultBrand, clients }).success).toBe(true);
    expect(() => buildBrandData()).not.toThrow();
  });

  test("holds about 45 services in the families of product §1 and about 22 client ids", () => {
    expect(rawBrands).toHaveLength(45);
    expect(Object.keys(clients)).toHaveLength(22);
    const families = new Set(rawBrands.map(({ id }) => id.split("-")[0]));
    expect([...families].sort()).toEqual(["client", "gungnir", "izarra", "liqueur", "nosh"]);
  });

  test("maps every client id to an existing service, covering every family", () => {
    const ids = new Set(rawBrands.map(({ id }) => id));
    for (const { serviceId } of Object.values(clients)) expect(ids).toContain(serviceId);
    const mappedFamilies = new Set(Object.values(clients).map(({ serviceId }) => serviceId.split("-")[0]));
    expect(mappedFamilies.size).toBe(5);
  });

  test.each([
    ["client", "client"],
    ["lemon", "liqueur-lemon"],
    ["partner", "liqueur-lemon-money-forword"],
    ["totpOnly", "izarra-astra"],
    ["advisor", "gungnir-minamo"],
    ["gungnir", "gungnir-aurora"],
    ["izarra", "izarra-hamanasu"],
    ["nosh", "nosh-shirotae"],
  ] as const)("sample client id %s maps to %s", (sample, serviceId) => {
    expect(clients[sampleClientIds[sample]]?.serviceId).toBe(serviceId);
  });

  test("registers every client's app redirect URIs as https or the app's own scheme", () => {
    for (const { serviceId, redirectUris } of Object.values(clients)) {
      expect(redirectUris).toContain(`https://app.${serviceId}.example/oauth/callback`);
      for (const uri of redirectUris) expect(new URL(uri).protocol).not.toMatch(/^(http|javascript|data):$/);
    }
    expect(clients[sampleClientIds.gungnir]?.redirectUris).toContain("jp.example.aurora://oauth/callback");
  });

  test("has exactly one partner-branded consent target, provided by the provider", () => {
    const targets = rawBrands.filter((candidate) => candidate.consentTarget);
    expect(targets.map(({ id }) => id)).toEqual(["liqueur-lemon-money-forword"]);
    expect(targets[0]?.partnerName).toBeTruthy();
    expect(targets[0]?.providerName).toBe(brand("client").providerName);
  });

  test("names the earlier service of liqueur-lemon, the one service in system transfer (product §8)", () => {
    expect(brand("liqueur-lemon").transfer?.earlierServiceName).toBeTruthy();
    expect(rawBrands.filter(({ transfer }) => transfer).map(({ id }) => id)).toEqual(["liqueur-lemon"]);
  });

  test("gives liqueur-lemon, and only it, the relaxed password rules (product §5)", () => {
    expect(rawBrands.filter(({ passwordRules }) => passwordRules === "relaxed").map(({ id }) => id)).toEqual([
      "liqueur-lemon",
    ]);
  });

  describe("allowed second factors (product §6)", () => {
    const built = buildBrandData();
    const everyBuilt = [...built.brands, built.defaultBrand];

    test("every brand allows TOTP and NONE ('set up later'), and SMS unless its data says smsSecondFactor: false", () => {
      for (const { id, smsSecondFactor, mfaTypes } of everyBuilt) {
        const expected = smsSecondFactor ? ["TOTP", "SMS", "NONE"] : ["TOTP", "NONE"];
        expect(mfaTypes, id).toEqual(expected);
      }
    });

    test("only the ASTOMO-like service (the totpOnly sample client's) and the default theme go without SMS", () => {
      const withoutSms = everyBuilt.filter(({ smsSecondFactor }) => !smsSecondFactor).map(({ id }) => id);
      expect(withoutSms).toEqual([clients[sampleClientIds.totpOnly]?.serviceId, "default"]);
    });

    test("no brand data names its MFA types by hand: the list is built from the rule", () => {
      for (const raw of everyBrand) expect(Object.keys(raw)).not.toContain("mfaTypes");
      const drifted = { ...built.brands[0]!, mfaTypes: ["TOTP", "SMS"] as const };
      expect(() => brandDataSchema.parse({ ...built, brands: [drifted, ...built.brands.slice(1)] })).toThrow(
        /product §6 rule/,
      );
    });
  });

  test("has advisor-managed services that show only the advisor wording", () => {
    const advisors = rawBrands.filter(({ support }) => support.advisorManaged);
    expect(advisors.length).toBeGreaterThanOrEqual(2);
    for (const { support } of advisors) {
      expect(support).toMatchObject({ callCenterName: "ご担当のアドバイザーまでお問い合わせください" });
      expect(support.tel ?? support.email).toBeUndefined();
    }
  });

  test("gives contacts by phone only, e-mail only and both", () => {
    const contacts = rawBrands.filter(({ support }) => !support.advisorManaged).map(({ support }) => support);
    expect(contacts.some(({ tel, email }) => tel && !email)).toBe(true);
    expect(contacts.some(({ tel, email }) => !tel && email)).toBe(true);
    expect(contacts.some(({ tel, email }) => tel && email)).toBe(true);
    expect(new Set(contacts.map(({ businessHour }) => businessHour)).size).toBe(4);
  });

  test("has support messages with markup and SMS- and TOTP-specific ones", () => {
    const messages = rawBrands.map(({ support }) => support);
    expect(messages.filter(({ defaultMessage }) => defaultMessage?.includes("<a ")).length).toBeGreaterThanOrEqual(2);
    expect(messages.some(({ smsMessage }) => smsMessage)).toBe(true);
    expect(messages.some(({ totpMessage }) => totpMessage)).toBe(true);
  });

  test.each(everyBrand.map((each) => [each.id, each] as const))(
    // Their existence, size, safety and contrast are npm run brands:check's (themes/check.test.ts).
    "%s: its images live under /brands/<id>/",
    (id, { logoImageUrl, backgroundImageUrl, favicon }) => {
      for (const url of [logoImageUrl, backgroundImageUrl, favicon])
        expect(url.startsWith(`/brands/${id}/`)).toBe(true);
    },
  );
});
