import { zValidator } from "@hono/zod-validator";
import type { MiddlewareHandler } from "hono";
import type { ReactElement } from "react";
import type { z } from "zod/mini";
import { fieldPresets } from "../forms/fields";
import type { RuleContext } from "../forms/rules";
import { type FieldMessageKey, fieldMessages } from "../messages/ja";
import type { Brand } from "../themes/schema";
import type { AppContext, AppEnv } from "./context";
import { type ChosenPassword, refusedPassword } from "./flow/chosenPassword";
import { brandRules } from "./formFields";
import { formBodyOnly } from "./middleware/formBodyOnly";
import { overLimit, type RateLimitClass, RETRY_AFTER_SECONDS } from "./rateLimit";
import { errorPage, type Outcome, parameterProblem, renderPage, type Show } from "./render";

// The kinds of route the table in routes.tsx is made of. Each kind brings its own checks, so a route module
// holds only what differs: how its screen loads, which form it reads, what it does with the upstream's answer.

/** A screen ready to render, with the journey state a form on it goes on with. */
export interface Screen<S> {
  state: S;
  page: ReactElement;
}

/** A screen that cannot be shown for a reason of its own (an expired sign-in): the error page with this outcome. */
export interface Refusal {
  refuse: Outcome;
}

/**
 * Loads a screen from the request's cookies (and its checked query); undefined when the journey state is missing
 * (the parameter problem), a refusal when the state is there but unusable.
 */
export type ScreenLoader<S, Q = undefined> = (c: AppContext, query: Q) => Promise<Screen<S> | Refusal | undefined>;

/** The answer when a loader did not give a screen. */
function notShown(c: AppContext, loaded: Refusal | undefined) {
  return loaded ? errorPage(c, loaded.refuse) : parameterProblem(c);
}

/**
 * How a form's fields are checked, from the request's brand's rule context (product §5: the one thing a form's rules
 * vary by), so that they are built once per brand and route, not per POST.
 */
export type FormSchema = (rules: RuleContext) => z.ZodMiniType;

/** What a form route does with its screen's state and the checked fields; `show` renders the screen again. */
type FormHandler<S, F extends FormSchema> = (
  c: AppContext,
  input: { state: S; form: z.infer<ReturnType<F>>; show: Show },
) => Response | Promise<Response>;

export interface RouteEntry {
  method: "GET" | "POST" | "ALL";
  path: string;
  /** The route's name in the product's words. */
  name: string;
  /**
   * `page`: the site's own screens and forms, behind the CSRF origin check, the brand resolution and the app's
   * form-action; `bare`: the narrow upstream proxy and the health check, which answer JSON and need none of it.
   */
  surface: "page" | "bare";
  /** A /{serviceId}/… path must name the brand the request resolved to, else 404. */
  pathBrand: boolean;
  /** architecture §8: the brute-force class the route is counted in (worker/rateLimit.ts). */
  rateLimit: RateLimitClass;
  /** A `form` route's field schema: besides the check itself, what the fuzz (test/fuzz) names its fields from. */
  form?: FormSchema;
  /** An `endpoint`'s or `screen`'s query schema, likewise. */
  query?: z.ZodMiniType;
  handlers: MiddlewareHandler<AppEnv>[];
}

interface Options {
  pathBrand?: boolean;
  /** `read` unless said otherwise. */
  rateLimit?: RateLimitClass;
}

/** 429 with Retry-After (the modal's) on the page's own layout: the screen again for a form, the error page otherwise. */
function tooManyAttempts(c: AppContext, show: Show = (outcome) => errorPage(c, outcome)) {
  return show({ modal: "tooManyAttempts" });
}

/** Counts a request without a subject (GETs, the proxy) in its class; over the limit, `refuse` answers. */
function counted(rateLimit: RateLimitClass, refuse: (c: AppContext) => Response | Promise<Response>) {
  return async function countRequest(c: AppContext, next: () => Promise<void>) {
    if (await overLimit(c, rateLimit)) return refuse(c);
    await next();
  } satisfies MiddlewareHandler<AppEnv>;
}

type QueryOf<Q> = Q extends z.ZodMiniType ? z.infer<Q> : undefined;

/** product §2/§8: a query that does not fit its schema shows the parameter-problem modal (400), never a 500. */
function checkedQuery(
  schema: z.ZodMiniType | undefined,
  modal?: "callbackParameterError",
): MiddlewareHandler<AppEnv>[] {
  if (!schema) return [];
  const check = zValidator("query", schema, (result, c) =>
    result.success ? undefined : parameterProblem(c as unknown as AppContext, modal),
  );
  return [check as unknown as MiddlewareHandler<AppEnv>];
}

function validQuery<Q>(c: AppContext, schema: z.ZodMiniType | undefined): QueryOf<Q> {
  return (schema ? c.req.valid("query" as never) : undefined) as QueryOf<Q>;
}

const PASSWORD_FIELDS = new Set<string>(
  Object.values(fieldPresets)
    .filter((preset) => preset.type === "password")
    .map((preset) => preset.name),
);

/** What the user typed, to show again: strings only, and never a password. */
function keptValues(posted: unknown): Record<string, string> {
  const entries = Object.entries(posted && typeof posted === "object" ? posted : {});
  return Object.fromEntries(
    entries.filter(
      (entry): entry is [string, string] => typeof entry[1] === "string" && !PASSWORD_FIELDS.has(entry[0]),
    ),
  );
}

/** Each field's first problem, as a message key: a rule names one; length or absence is 'required'. */
function fieldErrors(error: z.core.$ZodError): Partial<Record<string, FieldMessageKey>> {
  const errors: Partial<Record<string, FieldMessageKey>> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "");
    if (field in errors) continue;
    errors[field] = issue.message in fieldMessages ? (issue.message as FieldMessageKey) : "field.required";
  }
  return errors;
}

function showScreen(c: AppContext, page: ReactElement, posted: unknown): Show {
  const values = keptValues(posted);
  return (outcome: Outcome) =>
    renderPage(c, page, { ...outcome, form: { values, errors: outcome.form?.errors ?? {} } });
}

/** A route of the site's own pages: the page middleware, the path's brand check and a rate-limit class. */
function pageRoute(
  method: "GET" | "POST",
  path: string,
  name: string,
  options: Options,
  handlers: MiddlewareHandler<AppEnv>[],
): RouteEntry {
  const pathBrand = options.pathBrand ?? false;
  return { method, path, name, surface: "page", pathBrand, rateLimit: options.rateLimit ?? "read", handlers };
}

/** A GET that acts (the entry, the callback): its query checked (else the parameter modal), then the handler. */
export function endpoint<Q extends z.ZodMiniType | undefined = undefined>(
  path: string,
  name: string,
  options: Options & { query?: Q; parameterModal?: "callbackParameterError" },
  handler: (c: AppContext, query: QueryOf<Q>) => Response | Promise<Response>,
): RouteEntry {
  const rateLimit = options.rateLimit ?? "read";
  const route = pageRoute("GET", path, name, options, [
    counted(rateLimit, (c) => tooManyAttempts(c)),
    ...checkedQuery(options.query, options.parameterModal),
    async function endpointRoute(c) {
      return handler(c, validQuery<Q>(c, options.query));
    },
  ]);
  return options.query ? { ...route, query: options.query } : route;
}

/** A screen shown by GET: its query checked, its journey state loaded (either missing: the parameter modal). */
export function screen<S, Q extends z.ZodMiniType | undefined = undefined>(
  path: string,
  name: string,
  step: Options & { query?: Q; screen: ScreenLoader<S, QueryOf<Q>> },
): RouteEntry {
  return endpoint(path, name, step, async (c, query) => {
    const loaded = await step.screen(c, query);
    return loaded && "page" in loaded ? renderPage(c, loaded.page) : notShown(c, loaded);
  });
}

/** A screen with a form: how it loads, how its fields are checked, what its POST does. Route modules export these. */
export interface FormStep<S, F extends FormSchema> {
  screen: ScreenLoader<S>;
  form: F;
  /** Whom the attempt is about, for the per-subject limit: the login ID, the MFA session, the address. */
  subject?: (input: { state: S; form: z.infer<ReturnType<F>> }) => string | undefined;
  /** Where a password is chosen: refused before `submit` when it names the user or the brand, or has leaked. */
  chosenPassword?: (input: { state: S; form: z.infer<ReturnType<F>> }) => ChosenPassword;
  submit: FormHandler<S, F>;
}

/** Declares a form step with its types inferred, so `submit` needs no annotations. */
export function formStep<S, F extends FormSchema>(step: FormStep<S, F>): FormStep<S, F> {
  return step;
}

/**
 * A form POSTed on a screen: forms only (415 otherwise), the screen's journey state (else the parameter modal),
 * the fields checked by the shared rules (else the screen again with each field's message, 422), then submit.
 */
export function form<S, F extends FormSchema>(
  path: string,
  name: string,
  step: FormStep<S, F>,
  options: Options = {},
): RouteEntry {
  const loadedScreen = new WeakMap<AppContext, Screen<S>>();
  const rateLimit = options.rateLimit ?? "read";
  // One validator per brand, made on the brand's first POST: its fields follow the brand's rules alone (FormSchema).
  const validators = new WeakMap<Brand, MiddlewareHandler<AppEnv>>();
  const validatorFor = (c: AppContext) => {
    const brand = c.get("brand");
    let validator = validators.get(brand);
    if (!validator) {
      const check = zValidator("form", step.form(brandRules(c)), (result, hookContext) => {
        // The POST being checked: not `c`, the brand's first POST, which made this validator.
        const post = hookContext as AppContext;
        const loaded = loadedScreen.get(post);
        if (result.success || !loaded) return undefined;
        return showScreen(post, loaded.page, result.data)({ form: { values: {}, errors: fieldErrors(result.error) } });
      });
      validator = check as unknown as MiddlewareHandler<AppEnv>;
      validators.set(brand, validator);
    }
    return validator;
  };
  const route = pageRoute("POST", path, name, options, [
    formBodyOnly(),
    async function loadScreen(c, next) {
      const loaded = await step.screen(c, undefined);
      if (!loaded || !("page" in loaded)) return notShown(c, loaded);
      loadedScreen.set(c, loaded);
      await next();
    },
    function checkForm(c, next) {
      return validatorFor(c)(c, next);
    },
    async function submitForm(c) {
      const loaded = loadedScreen.get(c);
      if (!loaded) throw new Error(`${name}: the screen was not loaded before the form was read`);
      const posted = c.req.valid("form" as never) as z.infer<ReturnType<F>>;
      const show = showScreen(c, loaded.page, posted);
      const input = { state: loaded.state, form: posted, show };
      const subject = step.subject?.(input);
      const submit = async () => {
        const chosen = step.chosenPassword?.(input);
        const refused = chosen && (await refusedPassword(c, chosen));
        if (chosen && refused) return show({ form: { values: {}, errors: { [chosen.field]: refused } } });
        return step.submit(c, input);
      };
      if (rateLimit !== "credential") {
        if (await overLimit(c, rateLimit, subject)) return tooManyAttempts(c, show);
        return submit();
      }
      return countedOnceAnswered(c, subject, show, submit);
    },
  ]);
  return { ...route, form: step.form };
}

/**
 * architecture §8, docs/security.md "Rate limits": a credential try counts per IP before the upstream is asked, and
 * per subject only once the upstream has answered about it, so that an upstream failure (5xx, time-out, dropped,
 * malformed) never uses up a user's allowance. Over the subject's limit the answer is 429 whatever the upstream said,
 * without a cookie the try would have set: from then on a guesser learns nothing, and the upstream's own lockout
 * counts every try it saw.
 */
async function countedOnceAnswered(
  c: AppContext,
  subject: string | undefined,
  show: Show,
  submit: () => Response | Promise<Response>,
): Promise<Response> {
  if (await overLimit(c, "credential")) return tooManyAttempts(c, show);
  const cookiesBefore = c.res.headers.getSetCookie();
  const answer = await submit();
  if (subject === undefined || !c.get("upstreamAnswered")) return answer;
  if (!(await overLimit(c, "credential", subject, { ip: false }))) return answer;
  c.header("Set-Cookie", undefined);
  for (const line of cookiesBefore) c.header("Set-Cookie", line, { append: true });
  return tooManyAttempts(c, show);
}

/** A route without the page middleware: the upstream proxy (its handler decides what passes), the health check. */
export function bare(
  method: RouteEntry["method"],
  path: string,
  name: string,
  handler: MiddlewareHandler<AppEnv>,
  rateLimit: RateLimitClass = "read",
): RouteEntry {
  return {
    method,
    path,
    name,
    surface: "bare",
    pathBrand: false,
    rateLimit,
    handlers: [
      counted(rateLimit, (c) => {
        c.header("Retry-After", String(RETRY_AFTER_SECONDS));
        return c.json({ type: "too_many_requests", detail: "Too many requests; retry later." }, 429);
      }),
      handler,
    ],
  };
}

/** The last route: every path no other route answered is the brand's not-found page. */
export function notFound(name: string, handler: MiddlewareHandler<AppEnv>): RouteEntry {
  const handlers = [counted("read", (c) => tooManyAttempts(c)), handler];
  return { method: "ALL", path: "*", name, surface: "page", pathBrand: false, rateLimit: "read", handlers };
}
