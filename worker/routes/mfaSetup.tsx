import { Hono } from "hono";
import { MfaSetup } from "../../pages/MfaSetup";
import { MfaSetupSms } from "../../pages/MfaSetupSms";
import { MfaSetupTotp } from "../../pages/MfaSetupTotp";
import type { AppEnv } from "../context";
import { renderPage } from "../render";
import { readSealed } from "../session/cookies";

// SPEC §2/§4 MFA setup: only for a signed-in user (the tokens cookie); a missing token is the parameter problem (SPEC §8).
export const mfaSetupRoutes = new Hono<AppEnv>();

mfaSetupRoutes.get("/mfa/setup", async (c) => {
  if (!(await readSealed(c, "tokens"))) return renderPage(c, <MfaSetup modal="parameterError" />, 400);
  return renderPage(c, <MfaSetup />);
});

// The choice screen offers only the brand's allowed factors (SPEC §6); the set-up POSTs must refuse the others,
// since on these paths the brand comes only from the last-service cookie.
mfaSetupRoutes.get("/mfa/setup/TOTP", async (c) => {
  if (!(await readSealed(c, "tokens"))) return renderPage(c, <MfaSetupTotp modal="parameterError" />, 400);
  // The secret is requested from the identity API in a later issue; until it arrives the page shows the spinner.
  return renderPage(c, <MfaSetupTotp />);
});

mfaSetupRoutes.get("/mfa/setup/SMS", async (c) => {
  if (!(await readSealed(c, "tokens"))) return renderPage(c, <MfaSetupSms modal="parameterError" />, 400);
  return renderPage(c, <MfaSetupSms />);
});
