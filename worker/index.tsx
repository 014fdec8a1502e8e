import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { except } from "hono/combine";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ErrorPage } from "../pages/ErrorPage";
import { NotFound } from "../pages/NotFound";
import type { AppEnv } from "./context";
import { logEvent } from "./log";
import { appFormAction } from "./middleware/appFormAction";
import { requestId } from "./middleware/requestId";
import { securityHeaders } from "./middleware/securityHeaders";
import { tenant } from "./middleware/tenant";
import { renderPage } from "./render";
import { screenRoutes } from "./routes/screens";
import { signInRoutes } from "./routes/signIn";
import { emulatorDevProxy, PROXIED_PREFIXES, upstreamProxy } from "./routes/upstreamProxy";

const FORM_BODY_LIMIT = 32 * 1024;

export const app = new Hono<AppEnv>();

// Upstream calls are the upstream's to judge; the site's own forms get the CSRF check and the tenant.
const UPSTREAM_PATHS = [...PROXIED_PREFIXES, "/__emulator/*"];

app.use(requestId());
app.use(securityHeaders());
app.use(
  bodyLimit({
    maxSize: FORM_BODY_LIMIT,
    onError: () => {
      throw new HTTPException(413);
    },
  }),
);
app.use(except(UPSTREAM_PATHS, csrf()));
app.use(except(UPSTREAM_PATHS, tenant()));
app.use(except(UPSTREAM_PATHS, appFormAction()));

app.route("/", upstreamProxy);
app.route("/", emulatorDevProxy);
app.route("/", signInRoutes);
app.route("/", screenRoutes);

app.notFound((c) => renderPage(c, <NotFound />, 404));

app.onError(async (error, c) => {
  const status = error instanceof HTTPException ? error.status : 500;
  logEvent(status >= 500 ? "error" : "warn", "request_failed", {
    requestId: c.get("requestId"),
    status,
    name: error.name,
    message: error.message,
    path: c.req.path,
  });
  try {
    return await renderPage(c, <ErrorPage modal="unexpectedError" />, status as ContentfulStatusCode);
  } catch {
    return c.text("エラーが発生しました。しばらく時間をおいてお試しください。", 500);
  }
});

export default { fetch: app.fetch } satisfies ExportedHandler<Env>;
