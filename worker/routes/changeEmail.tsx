import { z } from "zod";
import { ChangeEmail } from "../../pages/ChangeEmail";
import { ChangeEmailResult, changeEmailResults } from "../../pages/ChangeEmailResult";
import { mailLinkScreen } from "../flow/forgetAuthRequest";
import { queryValue } from "../queryParams";
import { plainScreen } from "../routeKinds";

// SPEC §2 ChangeEmail (view emailChange). Without a token the page still renders: its action silently does
// nothing (SPEC §6); the request itself is the account-journeys issue's.
export const changeEmail = plainScreen(<ChangeEmail />);

/** SPEC §2 ChangeEmailResult: where the confirmation mails' links land; without a known result there is nothing to show. */
export const changeEmailResult = mailLinkScreen(
  z.object({ client_id: queryValue, result: z.enum(changeEmailResults) }),
  (query) => <ChangeEmailResult result={query.result} />,
);
