import type { IdentityState } from "./identityState";

/** Bindings of the emulator worker, as declared in emulator/wrangler.toml. */
export interface EmulatorEnv {
  IDENTITY_STATE: DurableObjectNamespace<IdentityState>;
  SITE_ORIGIN?: string;
}
