import { Hono } from "hono";
import { RegisterEmail } from "../../pages/RegisterEmail";
import type { AppEnv } from "../context";
import { renderPage } from "../render";

// SPEC §2 RegisterEmail. Without a token the page still renders: its actions silently do nothing (SPEC §6).
export const registerEmailRoutes = new Hono<AppEnv>();

registerEmailRoutes.get("/registerEmail", (c) => renderPage(c, <RegisterEmail />));
