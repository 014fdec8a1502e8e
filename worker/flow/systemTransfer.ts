import type { AppContext } from "../context";
import { passwordForgot } from "../identity/client";
import { failure } from "../identity/outcomes";
import type { Show } from "../render";

/**
 * product §8 "System transfer in progress": the brand whose accounts are moving in (its brand data has `transfer`)
 * first mails the user a password-initiation link (to /{serviceId}/initiatePassword) and shows the
 * REQUIRE_PASSWORD_INIT modal; every other brand says that registration waits for the migration in the earlier
 * service.
 */
export async function systemTransferNotice(
  c: AppContext,
  clientId: string | undefined,
  username: string,
  show: Show,
): Promise<Response> {
  if (!c.get("brand").transfer) return show({ modal: "transferElsewhere" });
  const sent = clientId ? await passwordForgot(c, clientId, username, true) : undefined;
  if (sent && !sent.ok) return show(failure(sent));
  return show({ modal: "requirePasswordInit" });
}
