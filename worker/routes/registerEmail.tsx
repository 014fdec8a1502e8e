import { RegisterEmail } from "../../pages/RegisterEmail";
import { plainScreen } from "../routeKinds";

// SPEC §2 RegisterEmail. Without a token the page still renders: its actions silently do nothing (SPEC §6);
// sending and confirming the code are the account-journeys issue's.
export const registerEmail = plainScreen(<RegisterEmail />);
