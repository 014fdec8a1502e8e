/**
 * Bindings of the emulator worker, as declared in emulator/wrangler.toml.
 *
 * This file imports nothing: the routes read this type, and the Durable Object class builds the routes,
 * so naming the class here would close an import cycle. The entry worker only forwards `fetch` to the
 * object, which an untyped namespace's stubs offer.
 */
export interface EmulatorEnv {
  /** The one `IdentityState` Durable Object (emulator/identityState.ts), named "global". */
  IDENTITY_STATE: DurableObjectNamespace;
  SITE_ORIGIN?: string;
}
