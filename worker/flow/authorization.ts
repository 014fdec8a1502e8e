import { decodeBase64url } from "../../islands/base64url";
import { registeredRedirectUris } from "../../themes/brands";
import type { Brand } from "../../themes/schema";
import type { AppContext } from "../context";
import type { AppAuthQuery, AuthRequest } from "../session/authRequest";
import { readSealed } from "../session/cookies";
import { s256 } from "../session/digest";
import { randomString } from "../session/random";

// architecture §4: how the site asks the OAuth2 server for a code, for the app (extSignIn) or for itself.

const PKCE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const PKCE_VERIFIER_LENGTH = 64;
/** The site's own requests ask for this scope (product §6); the partner service asks for none. */
const OWN_SCOPE = "user.write";

/** product §9: the PKCE verifier and the site's own state are random letters and digits. */
function newRandomString(length: number): string {
  return randomString(PKCE_ALPHABET, length);
}

/** The link a page shows to restart the app's authorization (worker/routes/restart.ts answers it). */
export const RESTART_PATH = "/restart";

export const siteCallbackUrl = (c: AppContext) => `${new URL(c.req.url).origin}/callback`;

/**
 * architecture §8: the app's redirect URI (its app_url with its callback path, product §3) as registered for its
 * client in the brand data, or undefined when that pair is not registered: the registered string is what the
 * site stores and redirects to, never the request's.
 */
function registeredAppRedirect(query: Pick<AppAuthQuery, "client_id" | "app_url" | "callback_path">) {
  if (!URL.canParse(query.callback_path ?? "", query.app_url)) return undefined;
  const asked = new URL(query.callback_path ?? "", query.app_url).toString();
  return registeredRedirectUris(query.client_id).find((registered) => registered === asked);
}

// Schemes that must never be allowed as a form target, whatever an app claims as its URL.
const UNSAFE_SCHEMES = new Set(["javascript:", "data:", "blob:", "file:", "filesystem:", "about:"]);

/** The origin a browser finally lands on for the app (for CSP form-action); an app's custom scheme gives its scheme. */
function appOriginForCsp(redirectUri: string): string | undefined {
  try {
    const url = new URL(redirectUri);
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
export function appAuthorizeUrl({ query, redirectUri }: AuthRequest, prompt: string | undefined): string {
  return authorizeUrl({
    response_type: "code",
    client_id: query.client_id,
    redirect_uri: redirectUri,
    state: query.state,
    scope: query.scope ?? "",
    code_challenge: query.code_challenge,
    code_challenge_method: query.code_challenge_method,
    view: "extSignIn",
    prompt,
    acr_values: query.acr_values,
    max_age: query.max_age,
  });
}

/** Authorize for the site itself (own views): the site's state and PKCE, back to /callback. */
async function ownAuthorizeUrl(
  c: AppContext,
  authRequest: AuthRequest,
  brand: Brand,
  prompt: string | undefined,
): Promise<string> {
  const own = authRequest.own;
  if (!own) throw new Error("an own-view authorization needs the site's PKCE verifier and state");
  return authorizeUrl({
    response_type: "code",
    client_id: authRequest.query.client_id,
    redirect_uri: siteCallbackUrl(c),
    state: own.state,
    scope: brand.consentTarget ? "" : OWN_SCOPE,
    code_challenge: await s256(own.codeVerifier),
    code_challenge_method: "S256",
    view: authRequest.query.view,
    prompt,
    acr_values: authRequest.query.acr_values,
    max_age: authRequest.query.max_age,
  });
}

/**
 * Restarting the app's authorization from a stored auth request (the sign-up 'fix the e-mail' link, the SMS
 * 'start over'): the very query the app sent to /{serviceId}/auth. Pages link to RESTART_PATH instead, so that
 * the app's state and PKCE challenge never appear in HTML (architecture §8).
 */
export function authStartHref({ serviceId, query }: AuthRequest): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  return `/${encodeURIComponent(serviceId)}/auth?${params}`;
}

/**
 * product §2 entry: a new auth request for the app's query and the authorization endpoint's address for it (the site's
 * path), forcing prompt=login unless the app names the user who is signed in here already. The caller stores it. An
 * app_url + callback_path that is not registered for the client is undefined (the caller's parameter problem).
 */
export async function newAuthorization(
  c: AppContext,
  brand: Brand,
  query: AppAuthQuery,
): Promise<{ authRequest: AuthRequest; authorize: string } | undefined> {
  const redirectUri = registeredAppRedirect(query);
  if (!redirectUri) return undefined;
  const tokens = await readSealed(c, "tokens");
  const sameUser = query.hashed_user_id !== undefined && query.hashed_user_id === tokens?.hashedUserName;
  const prompt = sameUser ? query.prompt : "login";
  const own =
    query.view === "extSignIn"
      ? undefined
      : { codeVerifier: newRandomString(PKCE_VERIFIER_LENGTH), state: newRandomString(32) };
  const authRequest: AuthRequest = { query, serviceId: brand.id, redirectUri, ...(own ? { own } : {}) };
  // The auth request is replaced, and so is the app a form on this response may end at.
  c.set("formActionOrigins", []);
  allowAppFormAction(c, authRequest);
  const authorize = own ? await ownAuthorizeUrl(c, authRequest, brand, prompt) : appAuthorizeUrl(authRequest, prompt);
  return { authRequest, authorize };
}

/**
 * A form posted on a page of this auth request may end, after the OAuth2 server's redirects, at the app's redirect
 * URI; browsers check every hop against form-action, so the app's origin joins 'self' (architecture §8).
 */
export function allowAppFormAction(c: AppContext, authRequest: AuthRequest): void {
  allowFormActionTo(c, authRequest.redirectUri);
}

/** A form on this response may end at `target` (a registered redirect URI, a service top): its origin joins 'self'. */
export function allowFormActionTo(c: AppContext, target: string): void {
  const origin = appOriginForCsp(target);
  if (origin && !c.get("formActionOrigins").includes(origin))
    c.set("formActionOrigins", [...c.get("formActionOrigins"), origin]);
}

/**
 * The claims of a compact JWS (RFC 7519 §7.2 without the signature check: the site reads its own tokens, which it
 * had from the OAuth2 server over TLS); throws on anything else.
 */
function unverifiedClaims(token: string): Record<string, unknown> {
  const parts = token.split(".");
  if (parts.length !== 3) throw new Error("not a compact JWS");
  const claims: unknown = JSON.parse(new TextDecoder().decode(decodeBase64url(parts[1] ?? "")));
  if (typeof claims !== "object" || claims === null || Array.isArray(claims)) throw new Error("claims not an object");
  return claims as Record<string, unknown>;
}

/** product §5: the decoded token must carry an expiry, and an expired token is rejected. */
export function tokenClaims(
  accessToken: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): { exp: number; username: string; authTime?: number; acr?: string } | undefined {
  try {
    const claims = unverifiedClaims(accessToken);
    const username =
      typeof claims.username === "string" ? claims.username : typeof claims.sub === "string" ? claims.sub : undefined;
    if (typeof claims.exp !== "number" || claims.exp <= nowSeconds || !username) return undefined;
    // When the user last signed in (OIDC Core §2 `auth_time`, RFC 9068 §2.2.1): /passkeys asks for a recent one.
    const authTime = Number.isSafeInteger(claims.auth_time) ? (claims.auth_time as number) : undefined;
    // What that sign-in achieved (docs/passkeys.md, "What a login claims"): `phr` after a passkey.
    const acr = typeof claims.acr === "string" ? claims.acr : undefined;
    return {
      exp: claims.exp,
      username,
      ...(authTime === undefined ? {} : { authTime }),
      ...(acr === undefined ? {} : { acr }),
    };
  } catch {
    return undefined;
  }
}
