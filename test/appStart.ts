import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from "oauth4webapi";

// How a brand's app opens the site (SPEC §2 entry): one definition for the workerd and the browser tests.

export interface AppBrand {
  serviceId: string;
  clientId: string;
}

export const APP_STATE = "app-state-0001";

export async function appStart(brand: AppBrand, view: string, extra: Record<string, string> = {}) {
  const verifier = generateRandomCodeVerifier();
  const query = new URLSearchParams({
    client_id: brand.clientId,
    view,
    app_url: `https://app.${brand.serviceId}.example`,
    callback_path: "/oauth/callback",
    state: APP_STATE,
    scope: "openid",
    code_challenge: await calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...extra,
  });
  return {
    path: `/${brand.serviceId}/auth?${query}`,
    verifier,
    appRedirect: `https://app.${brand.serviceId}.example/oauth/callback`,
  };
}
