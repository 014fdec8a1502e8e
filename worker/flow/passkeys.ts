import type { Brand } from "../../themes/schema";
import type { AuthRequest } from "../session/authRequest";

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
