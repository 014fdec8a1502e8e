import { brandById } from "../../themes/brands";
import type { AppContext } from "../context";
import { parameterProblem } from "../render";
import type { View } from "../session/authRequest";
import { readSealed, writeSealed } from "../session/cookies";
import type { TokenState } from "../session/state";
import { newAuthorization } from "./authorization";

// docs/passkeys.md "Managing passkeys", docs/devices.md "On the site: /security": the own views that change what
// protects the account need a sign-in within the last 5 minutes (the token's auth_time), as the identity API does;
// an older one steps up first.

/** A sign-in older than this steps up first (and the upstream refuses the change: 403 reauthentication_required). */
const RECENT_SIGN_IN_SECONDS = 5 * 60;

export function recentlySignedIn(tokens: TokenState): boolean {
  return tokens.authTime !== undefined && Date.now() / 1000 - tokens.authTime <= RECENT_SIGN_IN_SECONDS;
}

/** The step-up: the stored app request again, for this own view, with a login that cannot be skipped. */
export async function stepUp(c: AppContext, view: View): Promise<Response> {
  const authRequest = await readSealed(c, "authRequest");
  const brand = authRequest ? brandById(authRequest.serviceId) : undefined;
  if (!authRequest || !brand) return parameterProblem(c);
  // Through the authorization endpoint, whose proxy takes the challenge (worker/routes/upstreamProxy.ts).
  const stepUp = await newAuthorization(c, brand, { ...authRequest.query, view, prompt: "login" });
  if (!stepUp) return parameterProblem(c);
  await writeSealed(c, "authRequest", stepUp.authRequest);
  return c.redirect(stepUp.authorize, 302);
}
