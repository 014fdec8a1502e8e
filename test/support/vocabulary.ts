import type { AuthorizationDetails, BankAccount } from "../../forms/authorizationDetails";
import { clients, sampleClientIds } from "../../themes/data/clients";
import type { AppBrand } from "./appStart";

// The tests' one vocabulary: the brands the tests open, the seeded users' passwords and the second factors' secrets.
// Every layer (unit, workerd, the browsers, the bench and the fuzz) names them from here, so a brand's client id or
// a secret is written once.

export { PASSWORD } from "./emulatorClient";

/** The brand most journeys use: every second factor allowed, passkeys on. */
export const GUNGNIR: AppBrand = { serviceId: "gungnir-aurora", clientId: sampleClientIds.gungnir };
/** The partner service: its sign-in ends in the consent screen. */
export const PARTNER: AppBrand = { serviceId: "liqueur-lemon-money-forword", clientId: sampleClientIds.partner };
/** A brand with the relaxed password rules of product §5 and a transfer from an earlier service. */
export const LEMON: AppBrand = { serviceId: "liqueur-lemon", clientId: sampleClientIds.lemon };
/** A brand without SMS: the authenticator app or no second factor (product §6). */
export const ASTRA: AppBrand = { serviceId: "izarra-astra", clientId: sampleClientIds.totpOnly };
/** The site's own client ("client"), the neutral theme. */
export const CLIENT: AppBrand = { serviceId: "client", clientId: sampleClientIds.client };

/** A brand's client as the brand data registers it (its only client, or the first). */
function registeredBrand(serviceId: string): AppBrand {
  const clientId = Object.keys(clients).find((id) => clients[id]?.serviceId === serviceId);
  if (!clientId) throw new Error(`no client of ${serviceId} in themes/data/clients.ts`);
  return { serviceId, clientId };
}

/** A Gungnir brand whose data once offered no "set up later" (product §6 allows skipping the second factor everywhere). */
export const HAYATE: AppBrand = registeredBrand("gungnir-hayate");

/** The password a test changes to (meets every brand's rules). */
export const NEW_PASSWORD = "N3w-Passw0rd!";
/** The authenticator secret seeded for TOTP users (RFC 4648 base32, 160 bits). */
export const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";

/** docs/operations.md: the account the tests and tools push operations to, as an app shows it (the number masked). */
export const SAMPLE_ACCOUNT: BankAccount = {
  bank_name: "みずほ銀行",
  branch_name: "渋谷支店",
  account_type: "普通",
  account_number: "****1234",
};

/** A withdrawal of `amount` yen (100,000 unless given) to `destination`, as an app's server pushes it. */
export function sampleWithdrawal(amount = 100_000, destination: BankAccount = SAMPLE_ACCOUNT): AuthorizationDetails {
  return [{ type: "withdrawal", amount, currency: "JPY", destination }];
}

/** gungnir-aurora's registered redirect URI, where a pushed operation's answer goes. */
export const OPERATION_REDIRECT_URI = `https://app.${GUNGNIR.serviceId}.example/oauth/callback`;

/**
 * docs/operations.md: the form an app's server pushes to `/oauth2/par` for `sampleWithdrawal()` at gungnir-aurora,
 * with its own PKCE challenge (S256) and state.
 */
export function withdrawalPush(codeChallenge: string, state: string): URLSearchParams {
  return new URLSearchParams({
    client_id: GUNGNIR.clientId,
    response_type: "code",
    redirect_uri: OPERATION_REDIRECT_URI,
    scope: "openid",
    state,
    code_challenge: codeChallenge,
    code_challenge_method: "S256",
    authorization_details: JSON.stringify(sampleWithdrawal()),
  });
}
