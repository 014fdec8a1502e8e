import { describe, expect, it } from "vitest";
import { rawBrands } from "../../themes/data/brands";
import { get, ORIGIN, siteFetch } from "./helpers";
import { expectBaseline } from "./securityBaseline";

// The apps' association files (docs/passkeys.md, "The brands' apps"): what iOS and Android read to let a brand's app
// use this host's passkeys in its webview. Compared with the brand data in both directions: every app listed in the
// data is in the file, and the file lists nothing else.

const listed = rawBrands.flatMap((brand) => (brand.associatedApps ? [brand.associatedApps] : []));
const brandIds = rawBrands.map(({ id }) => id);
/** The brands whose data says their Android app may open this host's links (`handlesLinks`), by package. */
const linkBrands = new Map<string, string[]>();
for (const brand of rawBrands)
  for (const app of brand.associatedApps?.android ?? [])
    if (app.handlesLinks) linkBrands.set(app.package, [...(linkBrands.get(app.package) ?? []), brand.id]);
const iosApps = new Set(listed.flatMap(({ ios = [] }) => ios.map(({ appId }) => appId)));
const androidApps = new Map<string, Set<string>>();
for (const { android = [] } of listed)
  for (const app of android)
    androidApps.set(app.package, new Set([...(androidApps.get(app.package) ?? []), ...app.sha256CertFingerprints]));

async function fileAt(path: string): Promise<unknown> {
  const response = await get(path);
  expect(response.status).toBe(200);
  // Apple's fetcher follows no redirect and reads only JSON; both platforms cache the file.
  expect(response.headers.get("Content-Type")).toBe("application/json");
  expectBaseline(response, "same-origin", { "Cache-Control": "public, max-age=3600" });
  return response.json();
}

describe("/.well-known/apple-app-site-association", () => {
  it("lists every iOS app of the brand data as webcredentials, and nothing else", async () => {
    expect(iosApps.size).toBeGreaterThan(0);
    const file = (await fileAt("/.well-known/apple-app-site-association")) as { webcredentials: { apps: string[] } };
    expect(Object.keys(file)).toEqual(["webcredentials"]);
    expect(new Set(file.webcredentials.apps)).toEqual(iosApps);
    expect(file.webcredentials.apps).toHaveLength(iosApps.size);
    for (const app of file.webcredentials.apps) expect(app).toMatch(/^[A-Z0-9]{10}\.[A-Za-z0-9.-]+$/);
  });
});

type Rule = { "/": string; exclude?: boolean };
type Statement = {
  relation: string[];
  target: { namespace: string; package_name: string; sha256_cert_fingerprints: string[] };
  relation_extensions?: Record<string, { dynamic_app_link_components?: Rule[] }>;
};
const refuseAll = { "/": "*", exclude: true };
const rulesOf = (statement: Statement) =>
  statement.relation_extensions?.["delegate_permission/common.handle_all_urls"]?.dynamic_app_link_components;

describe("/.well-known/assetlinks.json", () => {
  // Every brand shares this host: `handle_all_urls` (kept: passkeys in the webview need it) would let one brand's app
  // open every brand's mailed reset and e-mail-change links. Android 15+ reads these rules (docs/passkeys.md).
  it("narrows handle_all_urls in every statement: no link of the host opens in an app without handlesLinks", async () => {
    const file = (await fileAt("/.well-known/assetlinks.json")) as Statement[];
    expect(file.length).toBeGreaterThan(0);
    for (const statement of file) {
      const rules = rulesOf(statement);
      expect(rules, statement.target.package_name).toBeDefined();
      expect(rules?.at(-1)).toEqual(refuseAll);
      const own = linkBrands.get(statement.target.package_name);
      if (own === undefined) {
        expect(rules).toEqual([refuseAll]);
        continue;
      }
      // An app with the flag: the mailed links refused before anything is allowed, then only its brands' pages.
      const firstAllow = rules?.findIndex((rule) => rule.exclude !== true) ?? -1;
      const refused = (rules ?? []).slice(0, firstAllow).map((rule) => rule["/"]);
      expect(refused).toContain("/auth/v1/user/email/confirm");
      for (const id of own)
        for (const page of ["forgotPassword", "initiatePassword", "changeEmail"])
          expect(refused).toContain(`/${id}/${page}*`);
      const allowed = (rules ?? []).filter((rule) => rule.exclude !== true).map((rule) => rule["/"]);
      expect(allowed.sort()).toEqual(own.map((id) => `/${id}/*`).sort());
      for (const other of brandIds.filter((id) => !own.includes(id)))
        expect(allowed.some((path) => path.startsWith(`/${other}/`))).toBe(false);
    }
  });

  it("has a statement with both relations for every Android app of the brand data, and nothing else", async () => {
    expect(androidApps.size).toBeGreaterThan(0);
    const file = (await fileAt("/.well-known/assetlinks.json")) as Statement[];
    expect(file).toHaveLength(androidApps.size);
    for (const { relation, target } of file) {
      expect(relation.sort()).toEqual([
        "delegate_permission/common.get_login_creds",
        "delegate_permission/common.handle_all_urls",
      ]);
      expect(target.namespace).toBe("android_app");
      expect(new Set(target.sha256_cert_fingerprints)).toEqual(androidApps.get(target.package_name));
      for (const fingerprint of target.sha256_cert_fingerprints)
        expect(fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    }
  });
});

describe("the association files' routes", () => {
  it.each(["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"])(
    "%s answers only GET: another method is the narrow proxy's refusal",
    async (path) => {
      const response = await siteFetch(`${ORIGIN}${path}`, { method: "POST", body: "{}" });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain("webcredentials");
    },
  );

  it("leaves every other path under /.well-known to the proxy's allow-list", async () => {
    expect((await get("/.well-known/apple-app-site-association.json")).status).toBe(404);
    expect((await get("/.well-known/security.txt")).status).toBe(404);
  });
});
