import { Hono } from "hono";
import { ErrorPage } from "../../pages/ErrorPage";
import type { AppEnv } from "../context";
import { renderPage } from "../render";

export const screenRoutes = new Hono<AppEnv>();

screenRoutes.get("/error", (c) => renderPage(c, <ErrorPage />));
