import { ChangePassword } from "../../pages/ChangePassword";
import { plainScreen } from "../routeKinds";

// SPEC §2 ChangePassword (view passwordChange). Without a token the page still renders: its action silently
// does nothing (SPEC §6); the change itself is the account-journeys issue's.
export const changePassword = plainScreen(<ChangePassword />);
