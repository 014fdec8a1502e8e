import { Hono } from "hono";
import { ErrorPage } from "../../pages/ErrorPage";
import type { AppEnv } from "../context";
import { renderPage } from "../render";
import { callbackRoutes } from "./callback";
import { changeEmailRoutes } from "./changeEmail";
import { changePasswordRoutes } from "./changePassword";
import { consentRoutes } from "./consent";
import { entryRoutes } from "./entry";
import { mfaSetupRoutes } from "./mfaSetup";
import { newPasswordRoutes } from "./newPassword";
import { registerEmailRoutes } from "./registerEmail";
import { resetPasswordRoutes } from "./resetPassword";
import { signInMfaRoutes } from "./signInMfa";
import { signUpRoutes } from "./signUp";

// Every SPEC §2 screen but sign-in (worker/routes/signIn.tsx), one route module per flow.
export const screenRoutes = new Hono<AppEnv>();

screenRoutes.route("/", entryRoutes);
screenRoutes.route("/", callbackRoutes);
screenRoutes.route("/", signUpRoutes);
screenRoutes.route("/", signInMfaRoutes);
screenRoutes.route("/", consentRoutes);
screenRoutes.route("/", resetPasswordRoutes);
screenRoutes.route("/", newPasswordRoutes);
screenRoutes.route("/", registerEmailRoutes);
screenRoutes.route("/", changePasswordRoutes);
screenRoutes.route("/", changeEmailRoutes);
screenRoutes.route("/", mfaSetupRoutes);

screenRoutes.get("/error", (c) => renderPage(c, <ErrorPage />));
