import { ChangePassword } from "../../pages/ChangePassword";
import type { ScreenLoader } from "../routeKinds";

// SPEC §2 ChangePassword (view passwordChange). Without a token the page still renders: its action silently
// does nothing (SPEC §6); the change itself is the account-journeys issue's.
export const changePasswordScreen: ScreenLoader<undefined> = async () => ({
  state: undefined,
  page: <ChangePassword />,
});
