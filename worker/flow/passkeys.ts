import type { Brand } from "../../themes/schema";

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
