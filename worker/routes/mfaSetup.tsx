import { Hono } from "hono";
import { z } from "zod";
import { MfaSetup } from "../../pages/MfaSetup";
import { MfaSetupSms } from "../../pages/MfaSetupSms";
import { MfaSetupTotp } from "../../pages/MfaSetupTotp";
import { brandById } from "../../themes/brands";
import { appAuthorizeUrl, appRedirectUri } from "../authorization";
import type { AppEnv } from "../context";
import { readForm } from "../formBody";
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

/**
 * SPEC §4 skip path ('set up later', only where NONE is allowed): the MFA-setup view returns to the app's
 * URL; every other view authorizes again for the app with prompt cleared, so the app gets its code.
 */
mfaSetupRoutes.post("/mfa/setup/skip", async (c) => {
  const [tokens, authRequest, form] = await Promise.all([
    readSealed(c, "tokens"),
    readSealed(c, "authRequest"),
    readForm(c, z.object({})),
  ]);
  if (!tokens || !authRequest || !form.ok) return renderPage(c, <MfaSetup modal="parameterError" />, 400);
  // The service of the app's request decides, not whichever brand the page was last shown in.
  if (!(brandById(authRequest.serviceId) ?? c.get("brand")).mfaTypes.includes("NONE"))
    return renderPage(c, <MfaSetup />, 403);
  if (authRequest.view === "mfaSetUp") return c.redirect(appRedirectUri(authRequest), 303);
  return c.redirect(appAuthorizeUrl(authRequest, undefined), 303);
});
