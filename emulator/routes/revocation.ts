import type { Context } from "hono";
import type { EmulatorHono } from "./context";

type EmulatorContext = Context<EmulatorHono>;

/** What of the account survives `endEverythingElse`: the browser session and device that made the change. */
export interface Survivor {
  browserSession?: string | undefined;
  device?: string | undefined;
  loginSession?: string | undefined;
}

/**
 * A changed or reset password ends everything an intruder could hold (docs/devices.md, "A changed password"): every
 * browser session of the account but `keep.browserSession`, with every consent, code, access and refresh token
 * issued through them; every login between its steps but `keep.loginSession`, and every login accepted and not yet
 * resumed; and the account forgets every device but `keep.device`, so that their next sign-in is confirmed by a
 * mailed code again. Passkeys stay: a passkey is not a password.
 */
export function endEverythingElse(c: EmulatorContext, username: string, keep: Survivor): void {
  const { tickets, devices } = c.var.services;
  const now = c.var.now;
  const ended = tickets
    .browserSessionsOf(username)
    .map((session) => session.id)
    .filter((id) => id !== keep.browserSession);
  tickets.endBrowserSessions(ended, now);
  tickets.revokePendingLogins(username, () => true, now);
  tickets.revokeLoginSessions(username, keep.loginSession, now);
  for (const device of devices.listOf(username)) if (device.digest !== keep.device) devices.forget(username, device.id);
}
