import { describe, expect, test } from "vitest";
import {
  allBrands,
  brandById,
  brandForClientId,
  clientIdsForBrand,
  defaultBrand,
  serviceIdForClientId,
} from "./brands";
import { clients, sampleClientIds } from "./data/clients";

describe("runtime brand accessors", () => {
  test("find a brand by service id, and nothing for unknown or inherited names", () => {
    expect(brandById("liqueur-lemon")?.displayName).toBe("レモンスクエア証券");
    for (const unknown of ["nope", "default", "__proto__", "constructor", ""])
      expect(brandById(unknown)).toBeUndefined();
  });

  test.each([
    ["client", "client"],
    ["partner", "liqueur-lemon-money-forword"],
    ["totpOnly", "izarra-astra"],
    ["advisor", "gungnir-minamo"],
  ] as const)("resolve the %s client id to %s", (sample, serviceId) => {
    expect(serviceIdForClientId(sampleClientIds[sample])).toBe(serviceId);
    expect(brandForClientId(sampleClientIds[sample])?.id).toBe(serviceId);
  });

  test("resolve nothing for an unknown client id", () => {
    expect(serviceIdForClientId("toString")).toBeUndefined();
    expect(brandForClientId("zzzzzzzzzzzzzzzzzzzzzzzzzz")).toBeUndefined();
  });

  test("list the client ids of a service in data order, as a copy", () => {
    const lemonClients = clientIdsForBrand("liqueur-lemon");
    expect(lemonClients).toEqual(Object.keys(clients).filter((id) => clients[id]?.serviceId === "liqueur-lemon"));
    expect(lemonClients[0]).toBe(sampleClientIds.lemon);
    lemonClients.pop();
    expect(clientIdsForBrand("liqueur-lemon")).toHaveLength(2);
    expect(clientIdsForBrand("gungnir-asagiri")).toEqual([]);
  });

  test("serve the sanitised brands and the neutral default", () => {
    expect(allBrands()).toHaveLength(45);
    expect(defaultBrand).toMatchObject({ id: "default", mfaTypes: ["TOTP", "NONE"], consentTarget: false });
    expect(brandById("client")?.support.defaultMessageHtml).toContain('rel="noopener noreferrer"');
  });
});
