import { z } from "zod";
import { ChangeEmail } from "../../pages/ChangeEmail";
import { ChangeEmailResult, changeEmailResults } from "../../pages/ChangeEmailResult";
import { forgetAuthRequest } from "../flow/forgetAuthRequest";
import { queryValue } from "../queryParams";
import type { ScreenLoader } from "../routeKinds";

// SPEC §2 ChangeEmail (view emailChange). Without a token the page still renders: its action silently does
// nothing (SPEC §6); the request itself is the account-journeys issue's.
export const changeEmailScreen: ScreenLoader<undefined> = async () => ({ state: undefined, page: <ChangeEmail /> });

export const changeEmailResultQuery = z.object({ client_id: queryValue, result: z.enum(changeEmailResults) });

/** SPEC §2 ChangeEmailResult: where the confirmation mails' links land; without a known result there is nothing to show. */
export const changeEmailResultScreen: ScreenLoader<undefined, z.infer<typeof changeEmailResultQuery>> = async (
  c,
  query,
) => {
  forgetAuthRequest(c);
  return { state: undefined, page: <ChangeEmailResult result={query.result} /> };
};
