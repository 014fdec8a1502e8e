import { z } from "zod";

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
}

const scopeToken = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** RFC 6749 / 7636 checks, run only after client_id and redirect_uri are known good. */
export const authorizationQuerySchema = z.object({
  response_type: z.literal("code", { error: 'response_type must be "code"' }),
  state: z.string({ error: "state is required" }).min(8, "state must be at least 8 characters").max(1024),
  scope: z
    .string()
    .max(1024)
    .default("")
    .refine((scope) => scope.split(" ").every((token) => token === "" || scopeToken.test(token)), "scope is malformed"),
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
    scope: query.scope.split(" ").filter(Boolean).join(" "),
    codeChallenge: query.code_challenge,
    view: query.view,
    prompt: query.prompt,
    nonce: query.nonce,
  };
}

/** The authorization URL at the site's origin carrying the original parameters plus a verifier. */
export function resumeUrl(
  site: string,
  request: AuthorizationRequest,
  verifier: { login_verifier: string } | { consent_verifier: string },
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
    ...Object.entries(verifier),
  ];
  for (const [name, value] of params) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
