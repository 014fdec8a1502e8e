import type { LoginContext } from "./loginContext";

/** What the account's history says about a login's context (state/devices.ts, state/signIns.ts). */
export interface LoginFamiliarity {
  /** A completed login of this account came from `context.device` (and the device was not forgotten since). */
  deviceKnown: boolean;
  /** The account has successful sign-ins within the history window (90 days). */
  signedInRecently: boolean;
  /** …and one of them came from `context.country`. */
  countrySeen: boolean;
}

/**
 * docs/devices.md, "The policy": a login that carries `context` is confirmed by a mailed code when its device is
 * unknown to the account (or it names none), or when it comes from a country none of the account's recent
 * successful sign-ins came from. An account without recent sign-ins has no usual country to compare with. A
 * passkey login never asks (its caller does not ask this), and a login without `context` never does.
 */
export function asksDeviceConfirmation(context: LoginContext, history: LoginFamiliarity): boolean {
  if (context.device === undefined || !history.deviceKnown) return true;
  return context.country !== undefined && history.signedInRecently && !history.countrySeen;
}
