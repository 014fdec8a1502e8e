import release from "virtual:release";
import * as Sentry from "@sentry/cloudflare";
import type { AppContext } from "./context";
import { deployEnvironment } from "./render";

// SPEC §9 error reporting: with SENTRY_DSN set, unexpected outcomes go to Sentry under the build's
// release label; without it nothing is sent. Events carry no secret: no request body, cookies, headers or query,
// and e-mail addresses are masked wherever they appear.

/** SPEC §8: errors about a missing current user are expected (a signed-out visitor) and not reported. */
const IGNORED = [/(no|missing) current user|current user (is )?(missing|not found)/i];

const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;
const scrubText = (text: string) => text.replace(EMAIL, "[email]");

/** Masks addresses in an event's texts and drops what a request could carry of the user's. */
function scrubEvent<E extends Sentry.Event>(event: E): E {
  if (event.request) {
    const url = event.request.url ? new URL(event.request.url) : undefined;
    event.request = {
      ...(url ? { url: `${url.origin}${url.pathname}` } : {}),
      ...(event.request.method ? { method: event.request.method } : {}),
    };
  }
  if (event.message) event.message = scrubText(event.message);
  for (const exception of event.exception?.values ?? [])
    if (exception.value) exception.value = scrubText(exception.value);
  if (event.breadcrumbs)
    event.breadcrumbs = event.breadcrumbs.map((crumb) => ({
      ...crumb,
      message: crumb.message && scrubText(crumb.message),
      data: undefined,
    }));
  delete event.user;
  delete event.extra;
  return event;
}

/**
 * The SDK's default integrations (@sentry/cloudflare's getBaseDefaultIntegrations, in its order) less the three
 * whose work never reaches what is sent from here. The build leaves their code out of the worker's upload
 * (worker/unreachableCode.vite-plugin.ts drops the SDK's own list, so this list is the one that runs):
 * - console: its breadcrumbs are all dropped by beforeBreadcrumb below;
 * - functionToString: it only makes `toString()` of the SDK's wrapped functions print the originals;
 * - conversationId: it tags AI conversation spans; the site has none.
 */
const integrations = () => [
  Sentry.dedupeIntegration(),
  Sentry.eventFiltersIntegration(),
  Sentry.linkedErrorsIntegration(),
  Sentry.fetchIntegration(),
  Sentry.httpServerIntegration(),
  Sentry.requestDataIntegration(),
];

/** The options last made, for the variables they were made from: made once per isolate, not per request. */
let made:
  | { dsn: string | undefined; appEnv: string | undefined; options: Sentry.CloudflareOptions | undefined }
  | undefined;

/** The SDK's options for this environment; `undefined` (nothing sent) when SENTRY_DSN is not set. */
export function sentryOptions(env: Env): Sentry.CloudflareOptions | undefined {
  if (!made || made.dsn !== env.SENTRY_DSN || made.appEnv !== env.APP_ENV)
    made = { dsn: env.SENTRY_DSN, appEnv: env.APP_ENV, options: optionsFor(env) };
  return made.options;
}

function optionsFor(env: Env): Sentry.CloudflareOptions | undefined {
  const dsn = env.SENTRY_DSN?.trim();
  if (!dsn) return undefined;
  const environment = deployEnvironment(env);
  return {
    dsn,
    release,
    environment,
    // SPEC §9: production traces every request.
    tracesSampleRate: environment === "prod" ? 1.0 : 0,
    ignoreErrors: IGNORED,
    // SPEC §9: nothing of the request's own reaches Sentry. Production's traces stream each span as it ends, which
    // beforeSend never sees; without these the SDK put every POST's body (a sign-in's password) on its span.
    dataCollection: { userInfo: false, cookies: false, httpHeaders: false, httpBodies: [], urlQueryParams: false },
    beforeSend: scrubEvent,
    beforeSendTransaction: scrubEvent,
    beforeBreadcrumb: (crumb) => (crumb.category === "console" ? null : crumb),
    defaultIntegrations: integrations(),
  };
}

/** Whether this request reports to Sentry (withSentry set a client up for it). */
const reporting = () => Sentry.isInitialized();

/** A thrown error the site answered with its error page. */
export function reportError(c: AppContext, error: unknown): void {
  if (!reporting()) return;
  Sentry.captureException(error, { tags: { route: c.get("log")?.route ?? "unknown", requestId: c.get("requestId") } });
}

/** An outcome that is not an exception but should not happen: a broken upstream contract, an island's crash. */
export function reportUnexpected(c: AppContext, what: string, tags: Record<string, string> = {}): void {
  if (!reporting()) return;
  Sentry.captureMessage(scrubText(what), {
    level: "error",
    tags: { route: c.get("log")?.route ?? "unknown", requestId: c.get("requestId"), ...tags },
  });
}
