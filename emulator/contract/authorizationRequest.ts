import { z } from "zod";
import type { PushedOperation } from "./operations";

/** What /oauth2/auth was asked, kept with a login or consent challenge until the code is issued. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  scope: string;
  codeChallenge: string;
  view: string;
  prompt?: string | undefined;
  nonce?: string | undefined;
  /** OIDC Core §3.1.2.1: the ACRs asked for, space-separated, in order of preference; not enforced (as Hydra). */
  acrValues?: string | undefined;
  /** OIDC Core §3.1.2.1: a remembered login older than this many seconds does not count; 0 as `prompt=login`. */
  maxAge?: number | undefined;
  /**
   * A pushed operation's details and binding nonce (docs/operations.md): present only on a request pushed to
   * `POST /oauth2/par`, and then `prompt` is `login`, `maxAge` 0 and `acrValues` `phr`.
   */
  operation?: PushedOperation | undefined;
}

const scopeToken = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

function spaceSeparated(value: string): boolean {
  return value.split(" ").every((token) => token === "" || scopeToken.test(token));
}

function normalised(value: string): string {
  return value.split(" ").filter(Boolean).join(" ");
}

/** RFC 6749 / 7636 checks, run only after client_id and redirect_uri are known good. */
export const authorizationQuerySchema = z.object({
  response_type: z.literal("code", { error: 'response_type must be "code"' }),
  state: z.string({ error: "state is required" }).min(8, "state must be at least 8 characters").max(1024),
  scope: z.string().max(1024).default("").refine(spaceSeparated, "scope is malformed"),
  code_challenge: z
    .string({ error: "PKCE code_challenge is required" })
    .regex(/^[A-Za-z0-9_-]{43}$/, "code_challenge must be a base64url SHA-256 digest"),
  code_challenge_method: z.literal("S256", { error: "code_challenge_method must be S256" }),
  view: z.string().max(64).default("signIn"),
  prompt: z
    .string()
    .max(64)
    .refine(
      (prompt) => prompt.split(" ").every((value) => ["login", "none", "consent", "select_account"].includes(value)),
      "prompt is not supported",
    )
    .optional(),
  nonce: z.string().max(1024).optional(),
  acr_values: z.string().max(1024).refine(spaceSeparated, "acr_values is malformed").optional(),
  max_age: z
    .string()
    .regex(/^\d{1,9}$/, "max_age must be a non-negative integer (seconds)")
    .transform(Number)
    .optional(),
});

export function toAuthorizationRequest(
  clientId: string,
  redirectUri: string,
  query: z.output<typeof authorizationQuerySchema>,
): AuthorizationRequest {
  return {
    clientId,
    redirectUri,
    state: query.state,
    scope: normalised(query.scope),
    codeChallenge: query.code_challenge,
    view: query.view,
    prompt: query.prompt,
    nonce: query.nonce,
    acrValues: query.acr_values === undefined ? undefined : normalised(query.acr_values),
    maxAge: query.max_age,
  };
}

/**
 * A remembered login that this request does not accept (OIDC Core §3.1.2.1, as Hydra): `prompt=login`, or a login
 * older than `max_age` seconds (`max_age=0` is `prompt=login`). The browser is then asked to sign in again.
 */
export function needsFreshLogin(request: AuthorizationRequest, authTime: number, now: number): boolean {
  if (request.prompt?.split(" ").includes("login")) return true;
  if (request.maxAge === undefined) return false;
  return request.maxAge === 0 || now - authTime > request.maxAge * 1000;
}

/**
 * The authorization URL at the site's origin carrying the original parameters, plus a verifier to resume it; without
 * one, the request as it came (Hydra's login request `request_url`).
 */
export function resumeUrl(
  site: string,
  request: AuthorizationRequest,
  verifier: { login_verifier: string } | { consent_verifier: string } | Record<string, never> = {},
): string {
  const url = new URL("/oauth2/auth", site);
  const params: [string, string | undefined][] = [
    ["response_type", "code"],
    ["client_id", request.clientId],
    ["redirect_uri", request.redirectUri],
    ["state", request.state],
    ["scope", request.scope],
    ["code_challenge", request.codeChallenge],
    ["code_challenge_method", "S256"],
    ["view", request.view],
    ["prompt", request.prompt],
    ["nonce", request.nonce],
    ["acr_values", request.acrValues],
    ["max_age", request.maxAge?.toString()],
    ...Object.entries(verifier),
  ];
  for (const [name, value] of params) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
