import type { AppContext } from "../context";
import { authStartHref } from "../flow/authorization";
import { parameterProblem } from "../render";
import { readSealed } from "../session/cookies";

/** product §2 'fix the e-mail' / 'start over': the app's authorization again, from the stored auth request. */
export async function restartAuthorization(c: AppContext): Promise<Response> {
  const authRequest = await readSealed(c, "authRequest");
  return authRequest ? c.redirect(authStartHref(authRequest), 303) : parameterProblem(c);
}
