import { describe, expect, test } from "vitest";
import { associationFiles, buildBrandData, sanitiseSupportHtml } from "./build";
import { defaultBrand, rawBrands } from "./data/brands";
import { clients } from "./data/clients";
import { brandDataSchema, type RawBrandData } from "./schema";

const payloads: [string, string, string][] = [
  ["a script element", "<script>alert(1)</script>", ""],
  ["an image with onerror", "<img src=x onerror=alert(1)>", ""],
  ["a javascript: link", '<a href="javascript:alert(1)">x</a>', "<a>x</a>"],
  ["a javascript: link hidden by case and a tab", '<a href=" JAVA\tSCRIPT:alert(1)">x</a>', "<a>x</a>"],
  ["a data: link", '<a href="data:text/html,<script>alert(1)</script>">x</a>', "<a>x</a>"],
  ["an svg with onload", "<svg onload=alert(1)>", ""],
  ["a mathml link", '<math><mi xlink:href="javascript:alert(1)">x</mi></math>', ""],
  ["an iframe", '<iframe src="https://x.example"></iframe>', ""],
  ["a style element", "<style>*{display:none}</style>text", "text"],
  ["a form", '<form action="https://x.example"><input name="q"></form>', ""],
  [
    "a new-tab link with handler and style",
    '<a href="https://ok.example" onclick="x" style="color:red" target="_blank">ok</a>',
    '<a href="https://ok.example" target="_blank" rel="noopener noreferrer">ok</a>',
  ],
  [
    "a new-tab link asking for the opener",
    '<a href="https://x.example" target="_blank" rel="opener">x</a>',
    '<a href="https://x.example" target="_blank" rel="noopener noreferrer">x</a>',
  ],
  [
    "a link with rel but no target",
    '<a rel="opener" href="https://x.example">x</a>',
    '<a href="https://x.example">x</a>',
  ],
  [
    "a link targeting the top window",
    '<a target="_top" href="https://x.example">x</a>',
    '<a href="https://x.example">x</a>',
  ],
  ["a plain-http link", '<a href="http://x.example">x</a>', "<a>x</a>"],
  ["a relative link", '<a href="/signIn">x</a>', "<a>x</a>"],
  ["a tel: link", '<a href="tel:0120-000-000">電話</a>', '<a href="tel:0120-000-000">電話</a>'],
  ["a mailto: link", '<a href="mailto:a@b.example">メール</a>', '<a href="mailto:a@b.example">メール</a>'],
  [
    "link attributes on a span",
    '<span class="note" href="https://x.example" target="_blank">s</span>',
    '<span class="note">s</span>',
  ],
  ["a data attribute and an id", '<p id="x" data-x="1" class="lead">p</p>', '<p class="lead">p</p>'],
  [
    "the allowed inline tags",
    "<p>a &amp; b<br>c</p><ul><li><strong>x</strong><em>y</em></li></ul>",
    "<p>a &amp; b<br>c</p><ul><li><strong>x</strong><em>y</em></li></ul>",
  ],
  ["plain Japanese text", "お問い合わせは平日のみ承ります。", "お問い合わせは平日のみ承ります。"],
];

describe("sanitiseSupportHtml", () => {
  test.each(payloads)("%s", (_, html, expected) => {
    expect(sanitiseSupportHtml(html)).toBe(expected);
  });
});

describe("buildBrandData", () => {
  const hostile: RawBrandData = structuredClone({ brands: rawBrands, default: defaultBrand, clients });
  const joined = payloads.map(([, html]) => html).join("");
  for (const brand of [...hostile.brands.slice(0, 3), hostile.default]) {
    brand.support.defaultMessage = joined;
    brand.support.smsMessage = joined;
    brand.support.totpMessage = joined;
  }

  test("lets no markup that could run script reach the built data", () => {
    const built = JSON.stringify(buildBrandData(hostile));
    for (const needle of [
      "<script",
      "onerror",
      "onload",
      "onclick",
      "javascript:",
      "data:",
      "<iframe",
      "<svg",
      "style=",
    ]) {
      expect(built.toLowerCase()).not.toContain(needle);
    }
    expect(built).toContain('rel=\\"noopener noreferrer\\"');
  });

  test("renames raw messages to their sanitised *Html fields and keeps the default brand", () => {
    const built = buildBrandData();
    expect(brandDataSchema.safeParse(built).success).toBe(true);
    const client = built.brands.find(({ id }) => id === "client");
    expect(client?.support).not.toHaveProperty("defaultMessage");
    expect(client?.support.defaultMessageHtml).toContain('target="_blank" rel="noopener noreferrer"');
    expect(client?.support.smsMessageHtml).toBeTruthy();
    expect(built.defaultBrand.id).toBe("default");
    expect(built.clients).toEqual(clients);
  });

  test("lists every issue by brand id when the data is invalid", () => {
    const broken = structuredClone({ brands: rawBrands, default: defaultBrand, clients });
    const aurora = broken.brands.find(({ id }) => id === "gungnir-aurora");
    if (!aurora) throw new Error("fixture lost gungnir-aurora");
    aurora.colorPattern.primary = "blue";
    aurora.support.tel = "12345";
    expect(() => buildBrandData(broken)).toThrow(
      /brands\[gungnir-aurora\]\.colorPattern\.primary: colour must be #rrggbb[\s\S]*brands\[gungnir-aurora\]\.support\.tel/,
    );
  });

  test("fails readably when a message is nothing but removed markup", () => {
    const scriptOnly = structuredClone({ brands: rawBrands, default: defaultBrand, clients });
    scriptOnly.default.support.smsMessage = "<script>alert(1)</script>";
    expect(() => buildBrandData(scriptOnly)).toThrow(
      /after sanitising the support messages[\s\S]*defaultBrand\.support\.smsMessageHtml/,
    );
  });
});

/** One statement of the built `assetlinks.json`. */
interface AssetLinksStatement {
  relation: string[];
  target: { namespace: string; package_name: string; sha256_cert_fingerprints: string[] };
  relation_extensions?: {
    "delegate_permission/common.handle_all_urls"?: {
      dynamic_app_link_components?: { "/": string; exclude?: boolean }[];
    };
  };
}

const refuseAll = { "/": "*", exclude: true };
const rulesOf = (statement: AssetLinksStatement) =>
  statement.relation_extensions?.["delegate_permission/common.handle_all_urls"]?.dynamic_app_link_components;

/**
 * The rules of an app that handles links for `own` brands (the mailed links are the reset and initiation links,
 * `/{serviceId}/forgotPassword` and `/initiatePassword`, and the e-mail change's `/auth/v1/user/email/confirm` and
 * its result page `/{serviceId}/changeEmail`): every mailed path refused before anything is allowed, only `own`'s
 * pages allowed, everything else refused last.
 */
function expectLinkRulesFor(statement: AssetLinksStatement, own: string[], allBrands: string[]): void {
  const rules = rulesOf(statement) ?? [];
  expect(rules.at(-1)).toEqual(refuseAll);
  const firstAllow = rules.findIndex((rule) => rule.exclude !== true);
  const refusedFirst = rules.slice(0, firstAllow).map((rule) => rule["/"]);
  expect(refusedFirst).toContain("/auth/v1/user/email/confirm");
  for (const id of own)
    for (const page of ["forgotPassword", "initiatePassword", "changeEmail"])
      expect(refusedFirst).toContain(`/${id}/${page}*`);
  const allowed = rules.filter((rule) => rule.exclude !== true).map((rule) => rule["/"]);
  expect(allowed.sort()).toEqual(own.map((id) => `/${id}/*`).sort());
  for (const other of allBrands.filter((id) => !own.includes(id)))
    expect(allowed.some((path) => path.startsWith(`/${other}/`))).toBe(false);
  expect(rules.slice(firstAllow).every((rule) => rule.exclude !== true || rule["/"] === "*")).toBe(true);
}

describe("the association files", () => {
  const built = buildBrandData();
  const listed = rawBrands.flatMap((brand) => (brand.associatedApps ? [brand.associatedApps] : []));
  const brandIds = rawBrands.map(({ id }) => id);

  test("Apple's lists every iOS app of the brand data once, as webcredentials, and nothing else", () => {
    const file = JSON.parse(built.associationFiles.appleAppSiteAssociation);
    const apps = [...new Set(listed.flatMap(({ ios = [] }) => ios.map(({ appId }) => appId)))].sort();
    expect(apps.length).toBeGreaterThan(1);
    expect(file).toEqual({ webcredentials: { apps } });
  });

  test("assetlinks.json has both relations for every Android app, with its fingerprints", () => {
    const file = JSON.parse(built.associationFiles.assetLinks) as AssetLinksStatement[];
    const packages = new Set(listed.flatMap(({ android = [] }) => android.map((app) => app.package)));
    expect(packages.size).toBeGreaterThan(1);
    expect(file.map(({ target }) => target.package_name).sort()).toEqual([...packages].sort());
    for (const statement of file) {
      expect(statement.relation).toEqual([
        "delegate_permission/common.handle_all_urls",
        "delegate_permission/common.get_login_creds",
      ]);
      expect(statement.target.namespace).toBe("android_app");
      const fingerprints = listed.flatMap(({ android = [] }) =>
        android
          .filter((app) => app.package === statement.target.package_name)
          .flatMap((app) => app.sha256CertFingerprints),
      );
      expect(statement.target.sha256_cert_fingerprints).toEqual([...new Set(fingerprints)].sort());
    }
  });

  test("every Android app of the brand data without handlesLinks opens no link of the shared host", () => {
    const file = JSON.parse(built.associationFiles.assetLinks) as AssetLinksStatement[];
    expect(file.length).toBeGreaterThan(1);
    for (const statement of file) {
      const flagged = rawBrands.filter(({ associatedApps }) =>
        associatedApps?.android?.some((app) => app.package === statement.target.package_name && app.handlesLinks),
      );
      if (flagged.length > 0)
        expectLinkRulesFor(
          statement,
          flagged.map(({ id }) => id),
          brandIds,
        );
      else expect(rulesOf(statement)).toEqual([refuseAll]);
    }
  });

  test("an app with handlesLinks refuses the mailed links first, then opens only its own brands' pages", () => {
    const data = structuredClone({ brands: rawBrands, default: defaultBrand, clients });
    const gungnir = data.brands.filter(({ associatedApps }) =>
      associatedApps?.android?.some((app) => app.package === "jp.example.gungnir"),
    );
    expect(gungnir.map(({ id }) => id).sort()).toEqual(["gungnir-aurora", "gungnir-hayate"]);
    for (const brand of gungnir) for (const app of brand.associatedApps?.android ?? []) app.handlesLinks = true;
    const file = JSON.parse(buildBrandData(data).associationFiles.assetLinks) as AssetLinksStatement[];
    const statement = file.find(({ target }) => target.package_name === "jp.example.gungnir");
    if (!statement) throw new Error("jp.example.gungnir is not in assetlinks.json");
    expectLinkRulesFor(statement, ["gungnir-aurora", "gungnir-hayate"], brandIds);
    expect(rulesOf(statement)).toEqual([
      { "/": "/auth/v1/user/email/confirm", exclude: true },
      { "/": "/gungnir-aurora/forgotPassword*", exclude: true },
      { "/": "/gungnir-aurora/initiatePassword*", exclude: true },
      { "/": "/gungnir-aurora/changeEmail*", exclude: true },
      { "/": "/gungnir-hayate/forgotPassword*", exclude: true },
      { "/": "/gungnir-hayate/initiatePassword*", exclude: true },
      { "/": "/gungnir-hayate/changeEmail*", exclude: true },
      { "/": "/gungnir-aurora/*" },
      { "/": "/gungnir-hayate/*" },
      refuseAll,
    ]);
    for (const other of file.filter((candidate) => candidate !== statement))
      expect(rulesOf(other)).toEqual([refuseAll]);
  });

  test("the brands sharing an Android app must agree on handlesLinks", () => {
    const data = structuredClone({ brands: rawBrands, default: defaultBrand, clients });
    const aurora = data.brands.find(({ id }) => id === "gungnir-aurora");
    const app = aurora?.associatedApps?.android?.[0];
    if (!app) throw new Error("fixture lost gungnir-aurora's Android app");
    app.handlesLinks = true;
    expect(() => buildBrandData(data)).toThrow(
      /jp\.example\.gungnir: every brand that lists it must give the same handlesLinks/,
    );
  });

  test("a shared app appears once, its brands' fingerprints joined", () => {
    const a = `${"AA:".repeat(31)}AA`;
    const b = `${"BB:".repeat(31)}BB`;
    const files = associationFiles([
      {
        id: "x-one",
        associatedApps: {
          ios: [{ appId: "ABCDE12345.jp.example.x", shared: true }],
          android: [{ package: "jp.example.x", sha256CertFingerprints: [b], shared: true, handlesLinks: false }],
        },
      },
      {
        id: "x-two",
        associatedApps: {
          ios: [{ appId: "ABCDE12345.jp.example.x", shared: true }],
          android: [{ package: "jp.example.x", sha256CertFingerprints: [a], shared: true, handlesLinks: false }],
        },
      },
      { id: "x-three" },
    ]);
    expect(JSON.parse(files.appleAppSiteAssociation)).toEqual({
      webcredentials: { apps: ["ABCDE12345.jp.example.x"] },
    });
    expect(JSON.parse(files.assetLinks)[0].target.sha256_cert_fingerprints).toEqual([a, b]);
  });

  test("the brands the worker gets carry no app listing", () => {
    expect(built.brands.some((brand) => "associatedApps" in brand)).toBe(false);
  });
});
