import brandData from "virtual:brand-data";
import type { Brand } from "./schema";

const brandsById = new Map(brandData.brands.map((brand) => [brand.id, brand]));
const clientsById = new Map(Object.entries(brandData.clients));
const clientIdsByServiceId = new Map<string, string[]>();
for (const [clientId, { serviceId }] of clientsById) {
  clientIdsByServiceId.set(serviceId, [...(clientIdsByServiceId.get(serviceId) ?? []), clientId]);
}

/** The sign-in host's association files for the brands' apps, made from brand data at build time (JSON text). */
export const associationFiles = brandData.associationFiles;

/** The neutral black-and-white theme for requests no brand resolves; no brand has its id. */
export const defaultBrand: Brand = brandData.defaultBrand;

export function brandById(serviceId: string): Brand | undefined {
  return brandsById.get(serviceId);
}

export function serviceIdForClientId(clientId: string): string | undefined {
  return clientsById.get(clientId)?.serviceId;
}

/** The app redirect URIs registered for a client (architecture §8); none for an unknown client. */
export function registeredRedirectUris(clientId: string): readonly string[] {
  return clientsById.get(clientId)?.redirectUris ?? [];
}

export function brandForClientId(clientId: string): Brand | undefined {
  const serviceId = serviceIdForClientId(clientId);
  return serviceId === undefined ? undefined : brandById(serviceId);
}

export function allBrands(): readonly Brand[] {
  return brandData.brands;
}

/** The brand's client ids in data order; a copy, so callers cannot change the shared table. */
export function clientIdsForBrand(serviceId: string): string[] {
  return [...(clientIdsByServiceId.get(serviceId) ?? [])];
}

// The one brand in system transfer, found once: every page render asks (worker/render.tsx).
const transferOfAnyBrand = brandData.brands.find((candidate) => candidate.transfer)?.transfer;

/** product §8 system transfer: the earlier service a notice names (the one brand in transfer), else the provider. */
export function earlierServiceName(brand: Brand): string {
  return (brand.transfer ?? transferOfAnyBrand)?.earlierServiceName ?? brand.providerName;
}
