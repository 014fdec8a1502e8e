import { z } from "zod/mini";
import { bounded } from "../queryParams";

// product §2 entry parameters and §3 auth request: the app's query, as one schema with one type. The entry parses
// it, the auth-request cookie stores it unchanged, and the callback, the MFA skip path, the restart links and
// the tests all read the same names. Its bounds are therefore the cookie's bounds too.

export const viewSchema = z.enum([
  "extSignIn",
  "signIn",
  "signInWithCheckUsername",
  "signInForceTOTPMFA",
  "signUp",
  "mfaSetUp",
  "passwordChange",
  "emailChange",
  // docs/passkeys.md "Managing passkeys": the user's passkeys (an own view, as passwordChange).
  "passkeys",
  // docs/devices.md "On the site: /security": the account's sign-ins and devices (an own view, as passkeys).
  "security",
]);
export type View = z.infer<typeof viewSchema>;

const value = bounded(1, 256);
/** RFC 6749 §A: state, scope and the other OAuth2 values are printable ASCII; bounded so the cookie stays < 4 KB. */
const ascii = (max: number) => bounded(1, max).check(z.regex(/^[\x20-\x7e]+$/));

export const appAuthQuerySchema = z.object({
  client_id: value,
  view: viewSchema,
  app_url: bounded(1, 512),
  callback_path: z.optional(bounded(0, 256)),
  state: ascii(256),
  /** Space-separated; empty is a valid scope (the partner service requests none). */
  scope: z.optional(bounded(0, 512).check(z.regex(/^[\x20-\x7e]*$/))),
  /** RFC 7636 §4.2: 43 to 128 characters of the base64url alphabet. */
  code_challenge: z.string().check(z.regex(/^[A-Za-z0-9._~-]{43,128}$/)),
  /** product §9 / architecture §8: S256 only; `plain` would hand the verifier to anyone who sees the URL. */
  code_challenge_method: z.literal("S256"),
  prompt: z.optional(ascii(64)),
  /**
   * OIDC Core §3.1.2.1, docs/passkeys.md "Step-up": the authentication context classes the app asks for, in order of
   * preference (`phr`: a passkey login), space-separated; passed to the OAuth2 server.
   */
  acr_values: z.optional(bounded(1, 256).check(z.regex(/^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/))),
  /** OIDC Core §3.1.2.1: the most seconds since the user's last login the app accepts (`0`: a login now). */
  max_age: z.optional(z.string().check(z.regex(/^\d{1,9}$/))),
  hashed_user_id: z.optional(ascii(128)),
  /** A login ID (an e-mail address) to fill in on the sign-in screen. */
  autoFillUserName: z.optional(ascii(254)),
  sign_in_mode: z.optional(ascii(64)),
});
export type AppAuthQuery = z.infer<typeof appAuthQuerySchema>;

export const authRequestSchema = z.object({
  query: appAuthQuerySchema,
  /** The brand of the app's client_id: after sign-in the brand comes from here, never from a later query. */
  serviceId: bounded(0, 64),
  /** The app's redirect URI as registered for its client (architecture §8): every redirect to the app uses it. */
  redirectUri: bounded(0, 512),
  /** product §2 "after sign-in": an unverified e-mail must be followed by MFA setup. */
  navigateMFASetupFlow: z.optional(z.boolean()),
  /**
   * architecture §8: the SHA-256 of the login challenge this browser took at the login URL; a consent is taken only
   * when the upstream's consent request names this login (or, after a login the upstream's session skipped, the
   * signed-in user of the tokens cookie).
   */
  loginChallengeDigest: z.optional(z.string().check(z.length(64))),
  /** The site's own PKCE verifier and state, for own views that come back to /callback. */
  own: z.optional(z.object({ codeVerifier: z.string().check(z.length(64)), state: bounded(0, 256) })),
});
export type AuthRequest = z.infer<typeof authRequestSchema>;
