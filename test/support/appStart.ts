import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from "oauth4webapi";
import type { AppAuthQuery, View } from "../../worker/session/authRequest";

// How a brand's app opens the site (product §2 entry): one definition for the workerd and the browser tests, typed
// by the schema the entry parses it with.

export interface AppBrand {
  serviceId: string;
  clientId: string;
}

export const APP_STATE = "app-state-0001";

export async function appStart(brand: AppBrand, view: View, extra: Partial<AppAuthQuery> = {}) {
  const verifier = generateRandomCodeVerifier();
  const query: AppAuthQuery = {
    client_id: brand.clientId,
    view,
    app_url: `https://app.${brand.serviceId}.example`,
    callback_path: "/oauth/callback",
    state: APP_STATE,
    scope: "openid",
    code_challenge: await calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...extra,
  };
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  return {
    path: `/${brand.serviceId}/auth?${params}`,
    verifier,
    appRedirect: `https://app.${brand.serviceId}.example/oauth/callback`,
  };
}
