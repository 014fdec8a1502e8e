import release from "virtual:release";
import * as Sentry from "@sentry/cloudflare";
import type { AppContext } from "./context";
import { loggedPath } from "./identity/upstream";
import { loggedRequestPath } from "./log";
import { deployEnvironment } from "./render";

// product §9 error reporting: with SENTRY_DSN set, unexpected outcomes go to Sentry under the build's
// release label; without it nothing is sent. Events and spans carry no secret: no request body, cookies, headers or
// query, no id in a path, and e-mail addresses are masked wherever they appear.

/** product §8: errors about a missing current user are expected (a signed-out visitor) and not reported. */
const IGNORED = [/(no|missing) current user|current user (is )?(missing|not found)/i];

const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;

/**
 * A path segment that stays as it is: a fixed word of a route, as every one of the site's and the identity API's is:
 * lower-case or camelCase words joined by `-`, `_` or `.` (`signIn`, `signout-others`, `.well-known`,
 * `assetlinks.json`, a brand's id), a short word in capitals (`TOTP`, `SMS`) or a word ending in one digit (`v1`,
 * `oauth2`). An id is almost never one: UUIDs and hex hold digits, base64url credential ids mix cases and digits, an
 * address holds `@`. Every other segment is named `{id}`, so that an id in a route added later is not sent either; a
 * new route's word that does not fit costs a trace its name, never a secret. The ids whose place is known are named
 * by their place whatever they look like (KNOWN_IDS).
 */
const ROUTE_WORD = /^(?:[._-]*[a-z]+(?:[A-Z][a-z]+)*(?:[._-]+[a-z]+(?:[A-Z][a-z]+)*)*|[A-Z]{2,4}|[a-z]+\d)$/;
const ROUTE_WORD_MAX = 64;

/**
 * The segments that are a secret or name one user's thing wherever they stand: the range route's password prefix
 * (loggedRequestPath), the identity API's device and passkey ids (loggedPath), and the leaked-password list's own
 * range path (docs/security.md, "Leaked passwords").
 */
const RANGE_API = /^(\/range\/)[^/]+/;
const KNOWN_IDS = (path: string) => loggedPath(loggedRequestPath(path)).replace(RANGE_API, "$1{prefix}");

/** A path as traces and reports name it: no query or fragment, the known ids by their place, other ids as `{id}`. */
function scrubPath(path: string): string {
  return KNOWN_IDS(path)
    .split("/")
    .map((segment) =>
      segment === "" || /^\{\w+\}$/.test(segment) || (segment.length <= ROUTE_WORD_MAX && ROUTE_WORD.test(segment))
        ? segment
        : "{id}",
    )
    .join("/");
}

/** A URL (or a path) with its origin kept and its path scrubbed; its query and fragment dropped. */
function scrubUrl(url: string): string {
  const [, origin = "", path = ""] = /^([a-z][a-z\d+.-]*:\/\/[^/?#]*)?([^?#]*)/i.exec(url) ?? [];
  return `${origin}${scrubPath(path)}`;
}

/**
 * A URL anywhere in a text, or a path at its start or after a space (`GET /password/range/…`), not `Mozilla/5.0`; a
 * sentence's punctuation after it is not its own.
 */
const URL_IN_TEXT = /(?:\b[a-z][a-z\d+.-]*:\/\/|(?<![^\s(])\/)(?:[^\s"'<>]*[^\s"'<>,.;:!?)])?/gi;
const scrubText = (text: string) => text.replace(URL_IN_TEXT, scrubUrl).replace(EMAIL, "[email]");

/** Masks addresses and ids in an event's texts and drops what a request could carry of the user's. */
function scrubEvent<E extends Sentry.Event>(event: E): E {
  if (event.request) {
    const url = event.request.url ? new URL(event.request.url) : undefined;
    event.request = {
      ...(url ? { url: `${url.origin}${scrubPath(url.pathname)}` } : {}),
      ...(event.request.method ? { method: event.request.method } : {}),
    };
  }
  if (event.transaction) event.transaction = scrubText(event.transaction);
  if (event.message) event.message = scrubText(event.message);
  for (const exception of event.exception?.values ?? [])
    if (exception.value) exception.value = scrubText(exception.value);
  if (event.breadcrumbs)
    event.breadcrumbs = event.breadcrumbs.map((crumb) => ({
      ...crumb,
      message: crumb.message && scrubText(crumb.message),
      data: undefined,
    }));
  // A transaction (the SDK sends one where it does not stream a trace's spans): its spans as streamed ones are.
  for (const span of event.spans ?? []) {
    if (span.description) span.description = scrubText(span.description);
    scrubAttributes(span.data);
  }
  scrubAttributes(event.contexts?.trace?.data);
  delete event.user;
  delete event.extra;
  return event;
}

type StreamedSpan = Parameters<NonNullable<Sentry.CloudflareOptions["beforeSendSpan"]>>[0];

/** Attributes that hold a query or fragment, which dataCollection already empties: dropped whole here all the same. */
const QUERY_ATTRIBUTES = new Set(["url.query", "http.query", "url.fragment", "http.fragment"]);

/**
 * Every span before it is sent, the request's own (the segment span) and the calls it made (fetch spans, whose
 * `url.full` and `http.url` name the identity API's path: a device or passkey id, the range path) alike: its name and
 * every text attribute scrubbed as an event's texts are (URLs and paths by scrubUrl, addresses masked), the query
 * attributes dropped. `server.address` and the other attributes without a path stay.
 */
function scrubSpan(span: StreamedSpan): StreamedSpan {
  // The SDK sends a span unchanged when this throws: nothing here may (a span without attributes, say).
  span.name = scrubText(span.name ?? "");
  scrubAttributes(span.attributes);
  return span;
}

/** A span's attributes, in place: the query ones dropped, every text scrubbed. */
function scrubAttributes(attributes: Record<string, unknown> | undefined): void {
  if (!attributes) return;
  for (const [name, value] of Object.entries(attributes)) {
    if (QUERY_ATTRIBUTES.has(name)) delete attributes[name];
    else if (typeof value === "string") attributes[name] = scrubText(value);
    else if (isTextAttribute(value)) attributes[name] = { ...value, value: scrubText(value.value) };
  }
}

/** An attribute given as an object (`{ value, unit }`) whose value is a text. */
const isTextAttribute = (value: unknown): value is { value: string } =>
  typeof value === "object" && value !== null && typeof (value as { value?: unknown }).value === "string";

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
    // product §9: production traces every request. Its spans are streamed, each as it ends (the SDK's default, pinned
    // here): beforeSendSpan sees every one, the request's own included, while beforeSendTransaction would see none.
    tracesSampleRate: environment === "prod" ? 1.0 : 0,
    traceLifecycle: "stream",
    ignoreErrors: IGNORED,
    // product §9: nothing of the request's own reaches Sentry. Production's traces stream each span as it ends, which
    // beforeSend never sees; without these the SDK put every POST's body (a sign-in's password) on its span.
    dataCollection: { userInfo: false, cookies: false, httpHeaders: false, httpBodies: [], urlQueryParams: false },
    beforeSend: scrubEvent,
    beforeSendTransaction: scrubEvent,
    beforeSendSpan: scrubSpan,
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
