import { getCookie, setCookie } from "hono/cookie";
import { WEBAUTHN_OFF_COOKIE } from "../../islands/nativeBridgeProtocol";
import { ENROLMENT_PATH } from "../../pages/PasskeyEnrolment";
import type { Brand } from "../../themes/schema";
import type { AppContext } from "../context";
import type { LoginResponse } from "../identity/client";
import { allowedRedirect } from "../identity/redirects";
import type { AuthRequest } from "../session/authRequest";
import { readSealed, writeSealed } from "../session/cookies";
import type { SignInSession } from "../session/state";

/** What a brand's pages do with passkeys (docs/passkeys.md, "Switches"). */
export type PasskeyPolicy = Brand["passkeys"];

/**
 * The environment's switch (`PASSKEYS`, on only where the identity API implements the passkey contract) above the
 * brand's data: while the switch is off, every brand is "off", so no page shows a passkey option and no passkey call
 * is made. Only the exact value "on" turns it on.
 */
export function passkeyPolicy(env: { PASSKEYS?: string | undefined }, brand: Pick<Brand, "passkeys">): PasskeyPolicy {
  return env.PASSKEYS === "on" ? brand.passkeys : "off";
}

/** The ACR values that only a passkey login meets (OpenID Connect EAP ACR Values 1.0). */
const PHISHING_RESISTANT = new Set(["phr", "phrh"]);

/**
 * docs/passkeys.md "Step-up": only a passkey may complete this login, because the brand requires passkeys or the app
 * asked for a phishing-resistant login (`acr_values` with `phr`). Hydra does not enforce `acr_values`; the site does.
 * Where passkeys are off, nothing can meet such a request: the login goes on, and the app sees its `acr`.
 */
export function passkeyRequired(
  env: { PASSKEYS?: string | undefined },
  brand: Pick<Brand, "passkeys">,
  authRequest: Pick<AuthRequest, "query"> | undefined,
): boolean {
  const policy = passkeyPolicy(env, brand);
  if (policy === "off") return false;
  if (policy === "required") return true;
  return (authRequest?.query.acr_values ?? "").split(" ").some((value) => PHISHING_RESISTANT.has(value));
}

/**
 * The brand's app said through the bridge that its webview cannot use passkeys (docs/native-bridge.md,
 * `getWebAuthnSupport`): no passkey option and no enrolment in this browser.
 */
export function webAuthnRefused(c: AppContext): boolean {
  return getCookie(c, WEBAUTHN_OFF_COOKIE, "host") === "off";
}

// docs/passkeys.md "Enrolment": 'later' is remembered in this browser for 14 days. Not secret: a plain cookie.
const LATER_COOKIE = "passkey-later";
const LATER_SECONDS = 14 * 24 * 60 * 60;

/** The user said 'later' to the enrolment in this browser within the last 14 days. */
function enrolmentPostponed(c: AppContext): boolean {
  return getCookie(c, LATER_COOKIE, "host") === "1";
}

export function postponeEnrolment(c: AppContext): void {
  setCookie(c, LATER_COOKIE, "1", { prefix: "host", httpOnly: true, sameSite: "Lax", maxAge: LATER_SECONDS });
}

/** The enrolment ticket lives 10 minutes upstream; the sign-in cookie that holds it no longer. */
export const ENROLMENT_SECONDS = 10 * 60;

/**
 * After an accepted password login: the enrolment screen instead of the app, when the upstream gave a ticket, the
 * brand offers passkeys here, this browser can make one (the sign-in form said so) and the user has not said
 * 'later'. The redirect it will go on to is checked now, as continueTo would. Undefined: go on as before.
 */
export async function offerEnrolment(
  c: AppContext,
  state: Pick<SignInSession, "loginChallenge" | "username" | "webauthn">,
  data: LoginResponse,
): Promise<Response | undefined> {
  const ticket = data.passkey_enrolment?.ticket;
  const redirectTo = data.redirect_to;
  if (!ticket || !redirectTo || !state.webauthn || enrolmentPostponed(c) || webAuthnRefused(c)) return undefined;
  // The app opened a screen that offers a passkey itself (the second-factor step, the list): not asked twice.
  const view = (await readSealed(c, "authRequest"))?.query.view;
  if (view === "mfaSetUp" || view === "passkeys") return undefined;
  if (passkeyPolicy(c.env, c.get("brand")) === "off" || !allowedRedirect(c, redirectTo)) return undefined;
  const enrolment = { ticket, redirectTo, codeSent: false };
  await writeSealed(c, "signIn", { ...state, enrolment }, ENROLMENT_SECONDS);
  return c.redirect(ENROLMENT_PATH, 303);
}
