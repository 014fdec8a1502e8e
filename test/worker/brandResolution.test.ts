import { describe, expect, it } from "vitest";
import { allBrands, brandById, defaultBrand } from "../../themes/brands";
import { sampleClientIds } from "../../themes/data/clients";
import { resolveBrand } from "../../worker/middleware/brand";
import { setCookies } from "../support/cookieJar";
import { get, sealedCookie } from "./helpers";

describe("brand resolution order (architecture §6)", () => {
  it.each([
    [
      "a brand in the path wins over client_id and cookie",
      { path: "/nosh-homura/consent", clientId: sampleClientIds.gungnir, lastServiceId: "liqueur-ume" },
      "nosh-homura",
    ],
    [
      "client_id when the path names no brand",
      { path: "/signIn", clientId: sampleClientIds.gungnir, lastServiceId: "liqueur-ume" },
      "gungnir-aurora",
    ],
    ["the last service when there is no client_id", { path: "/signIn", lastServiceId: "liqueur-ume" }, "liqueur-ume"],
    [
      "an unknown client_id falls through to the last service",
      { path: "/signIn", clientId: "unknown", lastServiceId: "liqueur-ume" },
      "liqueur-ume",
    ],
    [
      "an unknown brand in the path falls through to client_id",
      { path: "/no-such-brand/consent", clientId: sampleClientIds.nosh },
      "nosh-shirotae",
    ],
    ["screens are not brands", { path: "/signIn/mfa", clientId: sampleClientIds.izarra }, "izarra-hamanasu"],
    ["nothing known → the neutral default", { path: "/signIn" }, "default"],
    ["a stale cookie naming no brand → the default", { path: "/signIn", lastServiceId: "gone" }, "default"],
  ])("%s", (_name, sources, expected) => {
    expect(resolveBrand(sources).brand.id).toBe(expected);
  });
});

describe("brand rendering at the edge", () => {
  it.each(Object.entries(sampleClientIds))(
    "%s: title, favicon, logo and colours of the brand in the head",
    async (_kind, clientId) => {
      const response = await get(`/resetPassword?client_id=${clientId}`);
      const html = await response.text();
      const brand = allBrands().find((b) => html.includes(`<title>認証-${b.displayName}</title>`));
      expect(brand, "title names a brand").toBeDefined();
      expect(html).toContain(`<link rel="icon" href="${brand!.favicon}"`);
      expect(html).toContain(`src="${brand!.logoImageUrl}"`);
      expect(html).toContain(`--brand-primary:${brand!.colorPattern.primary}`);
      expect(setCookies(response).get("__Host-service")).toMatch(new RegExp(`^__Host-service=${brand!.id};.*Secure`));
    },
  );

  it("remembers the last service for a page reached without client_id", async () => {
    const cookie = await sealedCookie("signIn", { loginChallenge: "c" });
    const html = await (await get("/signIn", [cookie, "__Host-service=nosh-homura"])).text();
    expect(html).toContain(`<title>認証-${brandById("nosh-homura")!.displayName}</title>`);
  });

  it("shows the neutral black-and-white theme when no service resolves", async () => {
    const html = await (await get("/error")).text();
    expect(html).toContain(`<title>認証-${defaultBrand.displayName}</title>`);
    expect(html).toContain("--brand-primary:#000000");
  });
});
