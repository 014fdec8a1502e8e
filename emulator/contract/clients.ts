import { rawBrands } from "../../themes/data/brands";
import { clients as clientRecords, sampleClientIds } from "../../themes/data/clients";

/** An OAuth2 client as the emulator registers it: public, PKCE S256 only, no secret. */
export interface OAuthClient {
  id: string;
  serviceId: string;
  /** The partner-branded service asks the user's consent before a code is issued. */
  consentRequired: boolean;
  /** The app's redirect URIs, registered in the brand data the site checks too (architecture §8). */
  redirectUris: readonly string[];
  /**
   * How the brand's operations are approved (docs/operations.md): a passkey only, or also the password and the
   * account's second factor (the JSDA guideline's temporary alternative), from the brand data.
   */
  operationConfirmation: "passkey" | "passkeyOrCode";
}

/** Whom a notice names and whom it tells the customer to call: the brand of the app a login or change came through. */
export interface NoticeBrand {
  name: string;
  /** The brand's support line; an advisor-managed brand's customers are told to ask their advisor (product §2). */
  support:
    | { advisorManaged: true }
    | { advisorManaged: false; callCenterName: string; tel: string | undefined; businessHour: string }
    | undefined;
}

const providerName = rawBrands[0]?.providerName ?? "カザハナ証券";

/** The client's brand from the brand data; without a known client, the provider, without a support line. */
export function noticeBrand(clientId: string | undefined): NoticeBrand {
  const serviceId = findClient(clientId)?.serviceId;
  const brand = rawBrands.find((candidate) => candidate.id === serviceId);
  if (brand === undefined) return { name: providerName, support: undefined };
  const { support } = brand;
  return {
    name: brand.displayName,
    support: support.advisorManaged
      ? { advisorManaged: true }
      : {
          advisorManaged: false,
          callCenterName: support.callCenterName,
          tel: support.tel,
          businessHour: support.businessHour,
        },
  };
}

const consentTargets = new Set(rawBrands.filter((brand) => brand.consentTarget).map((brand) => brand.id));
const byCode = new Set(
  rawBrands.filter((brand) => brand.operationConfirmation === "passkeyOrCode").map((brand) => brand.id),
);

export const oauthClients: ReadonlyMap<string, OAuthClient> = new Map(
  Object.entries(clientRecords).map(([id, { serviceId, redirectUris }]) => [
    id,
    {
      id,
      serviceId,
      consentRequired: consentTargets.has(serviceId),
      redirectUris,
      operationConfirmation: byCode.has(serviceId) ? "passkeyOrCode" : "passkey",
    },
  ]),
);

export function findClient(clientId: string | undefined): OAuthClient | undefined {
  return clientId === undefined ? undefined : oauthClients.get(clientId);
}

/** The native app's callback that tests use as the second registered redirect URI of every client. */
export function appRedirectUri(serviceId: string): string {
  return `https://app.${serviceId}.example/oauth/callback`;
}

/**
 * The emulator's sample app (routes/sampleApp.ts) plays the app's server of these clients, pushing a withdrawal
 * (docs/operations.md): gungnir-aurora's (a passkey only; the first, its form's default) and liqueur-lemon's (a passkey,
 * or the password and a code: "The temporary alternative"). The code comes back to its page at this path of the site's
 * origin, a redirect URI registered for these clients in the emulator alone (dev only: no brand data names it).
 */
export const sampleAppClientIds: readonly string[] = [sampleClientIds.gungnir, sampleClientIds.lemon];
export const sampleAppCallbackPath = "/__emulator/sample-app/callback";

/**
 * Exact-match list: the site's own /callback (at the origin the request came through) and the app's own; for the
 * sample app's clients, the sample app's page too.
 */
export function registeredRedirectUris(client: OAuthClient, site: string): string[] {
  const sampleApp = sampleAppClientIds.includes(client.id) ? [`${site}${sampleAppCallbackPath}`] : [];
  return [`${site}/callback`, ...client.redirectUris, ...sampleApp];
}
