import type { Context } from "hono";
import { parseAuthorizationDetails } from "../../forms/authorizationDetails";
import {
  type AuthorizationRequest,
  authorizationQuerySchema,
  toAuthorizationRequest,
} from "../contract/authorizationRequest";
import { findClient, type OAuthClient, registeredRedirectUris } from "../contract/clients";
import { lifetimes } from "../contract/lifetimes";
import { maxPushedRequestBytes, requestUriPrefix } from "../contract/operations";
import { randomToken } from "../crypto/randomValues";
import { redirectToLogin, redirectWithError } from "./authorizationFlow";
import type { EmulatorHono } from "./context";
import { describeIssues, formText, isFormBody } from "./requestBody";

type EmulatorContext = Context<EmulatorHono>;

// docs/operations.md: an operation (a withdrawal, a bank-account change, a contact change) is approved through a
// pushed authorization request (RFC 9126) carrying RFC 9396 `authorization_details`. The app's server pushes it; the
// browser carries only `client_id` and `request_uri`, so the details never travel in a URL.

/** RFC 9126 §2.3: the token endpoint's error format (RFC 6749 §5.2), never cached. */
function parError(c: EmulatorContext, status: 400 | 401 | 405 | 413, error: string, description: string): Response {
  c.header("cache-control", "no-store");
  // RFC 6749 §5.2: printable ASCII without `"` or `\`.
  const printable = description.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, "?");
  return c.json({ error, error_description: printable }, status);
}

/** `POST /oauth2/par`: checks the request as `/oauth2/auth` would, keeps it, and answers its `request_uri`. */
export async function pushAuthorizationRequest(c: EmulatorContext): Promise<Response> {
  if (!isFormBody(c.req.raw))
    return parError(c, 400, "invalid_request", "The body must be application/x-www-form-urlencoded.");
  const text = await formText(c.req.raw);
  if (new TextEncoder().encode(text).length > maxPushedRequestBytes)
    return parError(c, 413, "invalid_request", `The body is over ${maxPushedRequestBytes} bytes.`);
  const params = new URLSearchParams(text);
  // RFC 6749 §5.2: an unknown client (every client is public: it authenticates with its client_id alone).
  const client = findClient(params.get("client_id") ?? undefined);
  if (client === undefined) return parError(c, 401, "invalid_client", "Unknown client_id.");
  // A partner's app asks the customer's consent to its scopes on a screen of its own, which an operation's approval
  // never passes through: operations are the brands' own apps'.
  if (client.consentRequired)
    return parError(c, 400, "unauthorized_client", "This client asks for consent and may not push operations.");
  const pushed = pushedRequest(c, client, params);
  if (pushed instanceof Response) return pushed;
  const requestUri = c.var.services.tickets.issue(
    "pushed_request",
    `${requestUriPrefix}${randomToken()}`,
    pushed,
    c.var.now + lifetimes.pushedRequest,
  );
  c.header("cache-control", "no-store");
  return c.json({ request_uri: requestUri, expires_in: lifetimes.pushedRequest / 1000 }, 201);
}

/** RFC 9126 §2.3: any other method. */
export function parMethodNotAllowed(c: EmulatorContext): Response {
  c.header("allow", "POST");
  return parError(c, 405, "invalid_request", "The pushed authorization request endpoint takes POST only.");
}

/**
 * The authorization request a push makes, or its refusal: the parameters `/oauth2/auth` takes (RFC 6749 §4.1.1, RFC
 * 7636, OIDC Core), each at most once (RFC 6749 §3.1), and `authorization_details`. The request asks a fresh passkey
 * login whatever the client said: `prompt` login, `max_age` 0, `acr_values` phr (`phr mfa` where the brand allows
 * the password and a second factor); `prompt=none` cannot be met.
 */
function pushedRequest(
  c: EmulatorContext,
  client: OAuthClient,
  params: URLSearchParams,
): AuthorizationRequest | Response {
  const repeated = [...new Set(params.keys())].filter((name) => params.getAll(name).length > 1);
  if (repeated.length > 0) return parError(c, 400, "invalid_request", `Given more than once: ${repeated.join(", ")}.`);
  // RFC 9126 §2.1: a pushed request cannot point at another one; request objects (RFC 9101) are not supported.
  if (params.has("request_uri")) return parError(c, 400, "invalid_request", "request_uri cannot be pushed.");
  if (params.has("request")) return parError(c, 400, "invalid_request", "Request objects are not supported.");
  const query = Object.fromEntries(params);
  // RFC 9126 §2.3: a missing or unregistered redirect URI, which RFC 6749 §4.1.2.1 gives no code of its own, is
  // invalid_request.
  const redirectUri = query.redirect_uri;
  if (redirectUri === undefined || !registeredRedirectUris(client, c.var.site).includes(redirectUri))
    return parError(c, 400, "invalid_request", "redirect_uri is not registered for this client.");
  const parsed = authorizationQuerySchema.safeParse(query);
  if (!parsed.success) {
    const unsupported = parsed.error.issues.some((issue) => issue.path[0] === "response_type");
    return parError(
      c,
      400,
      unsupported ? "unsupported_response_type" : "invalid_request",
      describeIssues(parsed.error),
    );
  }
  const asked = (parsed.data.prompt ?? "").split(" ").filter(Boolean);
  if (asked.includes("none"))
    return parError(c, 400, "invalid_request", "prompt=none cannot be met: an operation always asks a login.");
  if (query.authorization_details === undefined)
    return parError(c, 400, "invalid_request", "authorization_details is required: a push is for an operation.");
  const details = parseAuthorizationDetails(query.authorization_details);
  if (!details.success) return parError(c, 400, "invalid_authorization_details", details.error);
  const request = toAuthorizationRequest(client.id, redirectUri, parsed.data);
  return {
    ...request,
    prompt: asked.includes("consent") ? "login consent" : "login",
    maxAge: 0,
    // A passkey; where the brand allows its temporary alternative, the password and a second factor too.
    acrValues: client.operationConfirmation === "passkeyOrCode" ? "phr mfa" : "phr",
    operation: { bindingNonce: randomToken(), details: details.data },
  };
}

/**
 * `GET /oauth2/auth?client_id=…&request_uri=…`: the pushed request, used once by its own client (RFC 9126 §4,
 * §7.3). Refused with `invalid_request_uri`: at the request's redirect URI with its state once the request is known
 * for this client (used or expired), else as a 400 JSON error (unknown, or pushed by another client, whose request
 * is left alone). Any other parameter is refused too, and the request is spent: the details never travel in a URL.
 * A good one always asks a login: it is the operation's approval (docs/operations.md).
 */
export function authorizePushed(
  c: EmulatorContext,
  client: OAuthClient,
  requestUri: string,
  query: Record<string, string>,
): Response {
  const { tickets } = c.var.services;
  const now = c.var.now;
  const known = requestUri.startsWith(requestUriPrefix) ? tickets.dataOf("pushed_request", requestUri) : undefined;
  if (known === undefined || known.clientId !== client.id) {
    c.header("cache-control", "no-store");
    return c.json(
      {
        error: "invalid_request_uri",
        error_description: "The request_uri is unknown, or was pushed by another client.",
      },
      400,
    );
  }
  const found = tickets.find("pushed_request", requestUri, now);
  if (found.status !== "valid") {
    const reason = found.status === "expired" ? "has expired" : "was already used";
    return redirectWithError(c, known.redirectUri, known.state, "invalid_request_uri", `The request_uri ${reason}.`);
  }
  tickets.consume("pushed_request", requestUri, now);
  const others = Object.keys(query).filter((name) => name !== "client_id" && name !== "request_uri");
  if (others.length > 0)
    return redirectWithError(
      c,
      known.redirectUri,
      known.state,
      "invalid_request",
      `A pushed request takes client_id and request_uri only; push the rest: ${others.join(", ")}.`,
    );
  return redirectToLogin(c, found.data);
}
