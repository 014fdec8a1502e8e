import { Hono } from "hono";
import { Problem } from "./contract/problem";
import { account } from "./routes/account";
import { consent } from "./routes/consent";
import type { EmulatorHono, Services } from "./routes/context";
import { devEndpoints } from "./routes/devEndpoints";
import { devices } from "./routes/devices";
import { login } from "./routes/login";
import { oauth2 } from "./routes/oauth2";
import { passkeys } from "./routes/passkeys";
import { passwordReset } from "./routes/passwordReset";
import { pwnedRange } from "./routes/pwnedRange";
import { sampleApp } from "./routes/sampleApp";
import { signUp } from "./routes/signUp";
import { siteOrigin } from "./routes/siteOrigin";
import { emulatorNow } from "./state/clock";
import { playFault } from "./state/faults";

/** The emulator's routes, run inside the state object so every call sees one consistent store. */
export function createApp(services: Services): Hono<EmulatorHono> {
  const app = new Hono<EmulatorHono>();

  app.use(async function requestContext(c, next) {
    c.set("services", services);
    c.set("site", siteOrigin(c.req.raw.headers, c.env.SITE_ORIGIN));
    c.set("now", emulatorNow(services.sql));
    await next();
  });

  // Faults never apply to the controls themselves, or a test could lock itself out of reset.
  app.use(async function injectedFaults(c, next) {
    if (c.req.path.startsWith("/__emulator/")) return next();
    const fault = await services.faults.take(c.req.method, c.req.path, () => c.req.raw.clone().text());
    const response = fault && (await playFault(fault));
    if (response) return response;
    // The clock is read again: a delay fault must not hand out already-stale timestamps.
    if (fault) c.set("now", emulatorNow(services.sql));
    return next();
  });

  app.get("/auth/health", (c) => c.json({ status: "ok" }));
  for (const routes of [
    oauth2,
    login,
    signUp,
    passwordReset,
    consent,
    account,
    devices,
    passkeys,
    pwnedRange,
    devEndpoints,
  ])
    app.route("/", routes);
  // The sample app's page calls the emulator's own endpoints, as an app's server calls them at the site's origin.
  app.route("/", sampleApp(app));

  app.notFound((c) => c.json({ type: "not_found", detail: `No route for ${c.req.method} ${c.req.path}.` }, 404));
  app.onError((error, c) => {
    if (error instanceof Problem) return error.toResponse();
    console.error(
      JSON.stringify({ level: "error", message: "emulator handler failed", path: c.req.path, error: String(error) }),
    );
    return c.json({ type: "server_error", detail: "The emulator failed; see its log." }, 500);
  });
  return app;
}
