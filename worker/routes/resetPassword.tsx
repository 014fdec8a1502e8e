import { z } from "zod";
import { NewPassword, type NewPasswordVariant } from "../../pages/NewPassword";
import { ResetPassword } from "../../pages/ResetPassword";
import { ResetPasswordSendMail } from "../../pages/ResetPasswordSendMail";
import { mailLinkScreen } from "../flow/forgetAuthRequest";
import { clientIdQuery, queryValue } from "../queryParams";

// SPEC §2 password reset: the pages are reached outside any app's authorization (a link, a mail), so they
// first forget the stored auth request and take the service from client_id. Sending the mail and setting the
// new password are the account-journeys issue's.

export const resetPassword = mailLinkScreen(clientIdQuery, (query) => <ResetPassword clientId={query.client_id} />);

export const resetMailSent = mailLinkScreen(clientIdQuery, () => <ResetPasswordSendMail />);

/** The reset and initiation mails' links carry client_id, code and username. */
const newPasswordQuery = z.object({ client_id: queryValue, code: queryValue, username: queryValue });

function newPassword(variant: NewPasswordVariant) {
  return mailLinkScreen(newPasswordQuery, (query) => (
    <NewPassword variant={variant} clientId={query.client_id} code={query.code} username={query.username} />
  ));
}

export const forgotPassword = newPassword("forgotPassword");
export const initiatePassword = newPassword("initiatePassword");
