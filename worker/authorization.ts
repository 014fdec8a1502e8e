import { base64url, decodeJwt } from "jose";
import type { Brand } from "../themes/schema";
import type { AppContext } from "./context";
import { readSealed, writeSealed } from "./session/cookies";
import { randomString } from "./session/random";
import type { AuthRequest, View } from "./session/state";

// ARCHITECTURE §4: how the site asks the OAuth2 server for a code, for the app (extSignIn) or for itself.

const PKCE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const PKCE_VERIFIER_LENGTH = 64;
/** The site's own requests ask for this scope (SPEC §6); the partner service asks for none. */
export const OWN_SCOPE = "user.write";

/** SPEC §9: the PKCE verifier and the site's own state are random letters and digits. */
export function newRandomString(length: number): string {
  return randomString(PKCE_ALPHABET, length);
}

export async function s256(verifier: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

export async function sha256Hex(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

export const siteCallbackUrl = (c: AppContext) => `${new URL(c.req.url).origin}/callback`;

/** The app's own redirect URI: its app_url with its callback path (SPEC §3 auth request). */
export function appRedirectUri(authRequest: Pick<AuthRequest, "appUrl" | "callbackPath">): string {
  return new URL(authRequest.callbackPath || "", authRequest.appUrl).toString();
}

// Schemes that must never be allowed as a form target, whatever an app claims as its URL.
const UNSAFE_SCHEMES = new Set(["javascript:", "data:", "blob:", "file:", "filesystem:", "about:"]);

/** The origin a browser finally lands on for the app (for CSP form-action); an app's custom scheme gives its scheme. */
export function appOriginForCsp(authRequest: Pick<AuthRequest, "appUrl" | "callbackPath">): string | undefined {
  try {
    const url = new URL(appRedirectUri(authRequest));
    if (url.protocol === "https:" || url.protocol === "http:") return url.origin;
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) && !UNSAFE_SCHEMES.has(url.protocol) ? url.protocol : undefined;
  } catch {
    return undefined;
  }
}

function authorizeUrl(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  return `/oauth2/auth?${query}`;
}

/** Authorize for the app: its client, state, scope and PKCE, back to its own redirect URI. */
export function appAuthorizeUrl(authRequest: AuthRequest, prompt: string | undefined): string {
  return authorizeUrl({
    response_type: "code",
    client_id: authRequest.clientId,
    redirect_uri: appRedirectUri(authRequest),
    state: authRequest.state,
    scope: authRequest.scope,
    code_challenge: authRequest.codeChallenge,
    code_challenge_method: authRequest.codeChallengeMethod,
    view: "extSignIn",
    prompt,
  });
}

/** Authorize for the site itself (own views): the site's state and PKCE, back to /callback. */
export async function ownAuthorizeUrl(
  c: AppContext,
  authRequest: AuthRequest,
  brand: Brand,
  prompt: string | undefined,
): Promise<string> {
  const own = authRequest.own;
  if (!own) throw new Error("an own-view authorization needs the site's PKCE verifier and state");
  return authorizeUrl({
    response_type: "code",
    client_id: authRequest.clientId,
    redirect_uri: siteCallbackUrl(c),
    state: own.state,
    scope: brand.consentTarget ? "" : OWN_SCOPE,
    code_challenge: await s256(own.codeVerifier),
    code_challenge_method: "S256",
    view: authRequest.view,
    prompt,
  });
}

export interface AppAuthorization {
  clientId: string;
  view: View;
  appUrl: string;
  state: string;
  scope?: string | undefined;
  callbackPath?: string | undefined;
  codeChallenge: string;
  codeChallengeMethod: string;
  prompt?: string | undefined;
  hashedUserId?: string | undefined;
  autoFillUserName?: string | undefined;
  signInMode?: string | undefined;
}

/**
 * SPEC §2 entry: store the auth request and send the browser to the authorization endpoint, forcing
 * prompt=login unless the app names the user who is signed in here already.
 */
export async function startAuthorization(c: AppContext, brand: Brand, app: AppAuthorization): Promise<Response> {
  const tokens = await readSealed(c, "tokens");
  const sameUser = app.hashedUserId !== undefined && tokens !== undefined && app.hashedUserId === tokens.hashedUserName;
  const prompt = sameUser ? app.prompt : "login";
  const authRequest: AuthRequest = {
    clientId: app.clientId,
    serviceId: brand.id,
    appUrl: app.appUrl,
    scope: app.scope ?? "",
    state: app.state,
    callbackPath: app.callbackPath ?? "",
    codeChallenge: app.codeChallenge,
    codeChallengeMethod: app.codeChallengeMethod,
    view: app.view,
    ...(app.prompt ? { prompt: app.prompt } : {}),
    ...(app.hashedUserId ? { hashedUserId: app.hashedUserId } : {}),
    ...(app.autoFillUserName ? { autoFillUserName: app.autoFillUserName } : {}),
    signInMode: app.signInMode ?? "accountNumber",
    ...(app.view === "extSignIn"
      ? {}
      : { own: { codeVerifier: newRandomString(PKCE_VERIFIER_LENGTH), state: newRandomString(32) } }),
  };
  await writeSealed(c, "authRequest", authRequest);
  const target =
    app.view === "extSignIn"
      ? appAuthorizeUrl(authRequest, prompt)
      : await ownAuthorizeUrl(c, authRequest, brand, prompt);
  return c.redirect(target, 302);
}

/** SPEC §5: the decoded token must carry an expiry, and an expired token is rejected. */
export function tokenClaims(
  accessToken: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): { exp: number; username: string } | undefined {
  try {
    const claims = decodeJwt(accessToken);
    const username = typeof claims.username === "string" ? claims.username : claims.sub;
    if (typeof claims.exp !== "number" || claims.exp <= nowSeconds || !username) return undefined;
    return { exp: claims.exp, username };
  } catch {
    return undefined;
  }
}
