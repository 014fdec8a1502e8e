import { z } from "zod";
import { NewPassword, type NewPasswordVariant } from "../../pages/NewPassword";
import { ResetPassword } from "../../pages/ResetPassword";
import { ResetPasswordSendMail } from "../../pages/ResetPasswordSendMail";
import { forgetAuthRequest } from "../flow/forgetAuthRequest";
import { type clientIdQuery, queryValue } from "../queryParams";
import type { ScreenLoader } from "../routeKinds";

// SPEC §2 password reset: the pages are reached outside any app's authorization (a link, a mail), so they
// first forget the stored auth request and take the service from client_id. Sending the mail and setting the
// new password are the account-journeys issue's.

export const resetPasswordScreen: ScreenLoader<undefined, z.infer<typeof clientIdQuery>> = async (c, query) => {
  forgetAuthRequest(c);
  return { state: undefined, page: <ResetPassword clientId={query.client_id} /> };
};

export const resetMailSentScreen: ScreenLoader<undefined, z.infer<typeof clientIdQuery>> = async (c) => {
  forgetAuthRequest(c);
  return { state: undefined, page: <ResetPasswordSendMail /> };
};

/** The reset and initiation mails' links carry client_id, code and username. */
export const newPasswordQuery = z.object({ client_id: queryValue, code: queryValue, username: queryValue });

export function newPasswordScreen(
  variant: NewPasswordVariant,
): ScreenLoader<undefined, z.infer<typeof newPasswordQuery>> {
  return async (c, query) => {
    forgetAuthRequest(c);
    const { client_id: clientId, code, username } = query;
    return {
      state: undefined,
      page: <NewPassword variant={variant} clientId={clientId} code={code} username={username} />,
    };
  };
}
