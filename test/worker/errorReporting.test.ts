import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import release from "virtual:release";
import type { Event } from "@sentry/cloudflare";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { modals } from "../../messages/modals";
import { sentryOptions } from "../../worker/errorReporting";
import worker from "../../worker/index";
import { RETRY_AFTER_SECONDS } from "../../worker/rateLimit";
import { expectNoSecrets } from "../support/expectations";
import { formPost } from "../support/forms";
import { SENTRY_TEST_DSN } from "../support/sentryRecorder";
import { GUNGNIR, PASSWORD } from "../support/vocabulary";
import { clientIp, emulator, ORIGIN, projectEnv } from "./helpers";
import { Journey, reachLoginScreen } from "./journey";
import { rateLimitClock } from "./rateLimits";

// product §9: with SENTRY_DSN set, unexpected outcomes reach Sentry (here a local recorder, see
// test/worker/vitest.config.ts) with the build's release label; without it nothing is sent; events hold no secret.

/** A request to the deployed entry (Sentry's handler included) with SENTRY_DSN set or not; waits for its flush. Its
 * rate limits are the project's fakes on the test's clock, as every site request's (`projectEnv`). */
async function send(request: Request, dsn: string | undefined = SENTRY_TEST_DSN): Promise<Response> {
  const ctx = createExecutionContext();
  const incoming = request as Request<unknown, IncomingRequestCfProperties>;
  const response = await worker.fetch(incoming, projectEnv({ SENTRY_DSN: dsn }), ctx);
  const body = await response.text();
  await waitOnExecutionContext(ctx);
  return new Response(body, response);
}

const recorder = "https://sentry.test/__envelopes";
const envelopes = async (): Promise<string[]> => (await fetch(recorder)).json();

/** The events of the recorded envelopes (an envelope is newline-separated JSON: header, item header, item). */
async function events(): Promise<Array<Record<string, unknown>>> {
  return (await envelopes()).flatMap((envelope) => {
    const lines = envelope.split("\n").filter(Boolean);
    const found: Array<Record<string, unknown>> = [];
    for (let index = 1; index + 1 < lines.length; index += 2) {
      const header = JSON.parse(lines[index] ?? "{}") as { type?: string };
      if (header.type === "event") found.push(JSON.parse(lines[index + 1] ?? "{}"));
    }
    return found;
  });
}

/**
 * The recorded events once at least `count` have arrived. The SDK's flush stops waiting for its send after 2 s,
 * which a busy machine can exceed while the send itself goes on: so a test waits for the events, not the flush.
 */
async function arrived(count: number): Promise<Array<Record<string, unknown>>> {
  return vi.waitFor(
    async () => {
      const found = await events();
      if (found.length < count) throw new Error(`${found.length} of ${count} events recorded so far`);
      return found;
    },
    { timeout: 20_000, interval: 50 },
  );
}

function crashReport(
  message: string,
  headers: Record<string, string> = { "Sec-Fetch-Site": "same-origin" },
  where: { island: string; phase: string } = { island: "PasswordField", phase: "render" },
) {
  return new Request(`${ORIGIN}/report/island`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": clientIp(), ...headers },
    body: JSON.stringify({ ...where, message }),
  });
}

beforeEach(async () => {
  await fetch(recorder, { method: "DELETE" });
});
afterEach(() => emulator.clearFaults());

// Each test waits up to 20 s for its events to arrive (see arrived), beyond the default 5 s test timeout.
describe("error reporting", { timeout: 30_000 }, () => {
  it("reports a malformed upstream answer during sign-in once, under the release label; the user sees UNEXPECTED_ERROR", async () => {
    await emulator.seed({ email: "sentry.user@example.com" });
    const journey = new Journey();
    await reachLoginScreen(journey, GUNGNIR, "signIn");
    await emulator.fault({ pathPattern: "/auth/v1/login", status: 201, malformed: true });
    const posted = formPost(
      { username: "sentry.user@example.com", password: PASSWORD },
      { Origin: ORIGIN, Cookie: journey.cookieHeader("/signIn"), "CF-Connecting-IP": journey.ip },
    );
    const response = await send(new Request(`${ORIGIN}/signIn`, posted));
    expect(response.status).toBe(502);
    expect(await response.text()).toContain(modals.unexpectedError.title);
    const reported = await arrived(1);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({ release, environment: "dev", level: "error" });
    expect(String(reported[0]?.release)).toMatch(/^v0\.6\.1\+[0-9a-f]{7}$/);
    expect(JSON.stringify(reported[0])).toContain("upstream contract broken: POST /auth/v1/login");
    const raw = (await envelopes()).join("\n");
    expectNoSecrets(raw, ["sentry.user@example.com", PASSWORD, journey.cookieHeader("/signIn").slice(20, 60)]);
  });

  it("sends nothing when SENTRY_DSN is not set", async () => {
    const response = await send(crashReport("TypeError: boom"), "");
    expect(response.status).toBe(204);
    expect(await envelopes()).toEqual([]);
  });

  it("reports an island's crash, masking e-mail addresses", async () => {
    const response = await send(crashReport("TypeError: cannot read hanako@example.jp's field"));
    expect(response.status).toBe(204);
    const [event] = await arrived(1);
    const text = JSON.stringify(event);
    expect(text).toContain("island PasswordField crashed (render)");
    expect(text).toContain("[email]");
    expect(text).not.toContain("hanako@example.jp");
    expect(event?.tags).toMatchObject({ island: "PasswordField", phase: "render" });
  });

  it("reports an uncaught error of the page outside any island (an older engine's missing API, say)", async () => {
    const uncaught = crashReport("TypeError: dialog.showPopover is not a function", undefined, {
      island: "page",
      phase: "uncaught",
    });
    expect((await send(uncaught)).status).toBe(204);
    const [event] = await arrived(1);
    expect(JSON.stringify(event)).toContain("island page crashed (uncaught): TypeError: dialog.showPopover");
    expect(event?.tags).toMatchObject({ island: "page", phase: "uncaught" });
  });

  it("ignores errors about a missing current user (product §8)", async () => {
    expect((await send(crashReport("Error: No current user"))).status).toBe(204);
    // A report sent after it is recorded; by then an event for the first, had there been one, was sent too.
    expect((await send(crashReport("TypeError: marker"))).status).toBe(204);
    const recorded = await arrived(1);
    expect(recorded.map((event) => JSON.stringify(event).includes("marker"))).toEqual([true]);
  });
});

describe("the SDK's options", () => {
  it("collects nothing of a request: production's streamed spans never pass beforeSend", () => {
    // Without this the SDK put every POST's body, a sign-in's password included, on the span of its request (seen on
    // workerd with a production build). test/worker/traces.test.ts sends real spans and searches them.
    const production = sentryOptions({ ...env, APP_ENV: "prod", SENTRY_DSN: SENTRY_TEST_DSN } as Env);
    expect(production?.dataCollection).toEqual({
      userInfo: false,
      cookies: false,
      httpHeaders: false,
      httpBodies: [],
      urlQueryParams: false,
    });
  });

  it("scrub every span: no query, the known ids by their place, any other id-like segment as {id}", () => {
    const production = sentryOptions({ ...env, APP_ENV: "prod", SENTRY_DSN: SENTRY_TEST_DSN } as Env);
    expect(production?.traceLifecycle).toBe("stream");
    const span = production?.beforeSendSpan?.({
      trace_id: "0".repeat(32),
      span_id: "0".repeat(16),
      name: "GET /password/range/ABCDE",
      start_timestamp: 0,
      status: "ok",
      is_segment: true,
      attributes: {
        // A device id without a digit, and one with: the first is an id by its place alone.
        "url.full": "https://id-api.example/auth/v1/user/devices/deviceWithoutDigits/signout?token=t0ken",
        "http.url": "https://id-api.example/auth/v1/user/devices/3f2b1c9e-0d4a-4b8e-9a3c-5e6f7a8b9c0d",
        "url.path": "/auth/v1/passkeys/AbCdEfGhIjKlMnOpQrStUv",
        "http.target": "/range/ABCDE?x=1",
        "url.query": "login_challenge=abc",
        "server.address": "id-api.example",
        "http.route": "/gungnir-aurora/consent",
        note: "GET /.well-known/openid-configuration and /mfa/setup/TOTP, /users/hanako@example.jp/x99",
        "user_agent.original": "Mozilla/5.0 (X11; Linux x86_64)",
        typed: { value: "https://signin.test/callback?code=c0de", type: "string" },
        "http.response.status_code": 200,
      },
    });
    expect(span?.name).toBe("GET /password/range/{prefix}");
    expect(span?.attributes).toEqual({
      "url.full": "https://id-api.example/auth/v1/user/devices/{id}/signout",
      "http.url": "https://id-api.example/auth/v1/user/devices/{id}",
      "url.path": "/auth/v1/passkeys/{id}",
      "http.target": "/range/{prefix}",
      "server.address": "id-api.example",
      "http.route": "/gungnir-aurora/consent",
      note: "GET /.well-known/openid-configuration and /mfa/setup/TOTP, /users/{id}/{id}",
      "user_agent.original": "Mozilla/5.0 (X11; Linux x86_64)",
      typed: { value: "https://signin.test/callback", type: "string" },
      "http.response.status_code": 200,
    });
  });

  it("scrub a transaction as its spans: the SDK sends one for a trace it did not stream (seen on a busy machine)", () => {
    const production = sentryOptions({ ...env, APP_ENV: "prod", SENTRY_DSN: SENTRY_TEST_DSN } as Env);
    const deviceUrl = "https://id-api.example/auth/v1/user/devices/3f2b1c9e-0d4a-4b8e-9a3c-5e6f7a8b9c0d/signout";
    const transaction = production?.beforeSendTransaction?.(
      {
        type: "transaction",
        transaction: "POST /security/signout",
        contexts: { trace: { trace_id: "0".repeat(32), span_id: "0".repeat(16), data: { "url.full": deviceUrl } } },
        spans: [
          {
            trace_id: "0".repeat(32),
            span_id: "1".repeat(16),
            start_timestamp: 0,
            status: "ok",
            description: `POST ${deviceUrl}?token=t0ken`,
            data: { "url.full": deviceUrl, "url.query": "token=t0ken", "http.response.status_code": 404 },
          },
        ],
        breadcrumbs: [{ category: "fetch", type: "http", data: { method: "POST", url: deviceUrl } }],
      },
      {},
    ) as Event | undefined;
    const scrubbed = "https://id-api.example/auth/v1/user/devices/{id}/signout";
    expect(transaction?.spans?.[0]?.description).toBe(`POST ${scrubbed}`);
    expect(transaction?.spans?.[0]?.data).toEqual({ "url.full": scrubbed, "http.response.status_code": 404 });
    expect(transaction?.contexts?.trace?.data).toEqual({ "url.full": scrubbed });
    expect(transaction?.breadcrumbs?.[0]?.data).toBeUndefined();
    expect(JSON.stringify(transaction)).not.toContain("3f2b1c9e");
  });

  it("trace every request in production (product §9), under the environment's name; none without a DSN", () => {
    const production = sentryOptions({ ...env, APP_ENV: "prod", SENTRY_DSN: SENTRY_TEST_DSN } as Env);
    expect(production).toMatchObject({ dsn: SENTRY_TEST_DSN, release, environment: "prod", tracesSampleRate: 1 });
    expect(sentryOptions({ ...env, APP_ENV: "stg", SENTRY_DSN: SENTRY_TEST_DSN } as Env)?.environment).toBe("stg");
    expect(sentryOptions({ ...env, SENTRY_DSN: " " } as Env)).toBeUndefined();
  });
});

describe("the island crash endpoint", () => {
  it("takes reports from the site's own pages only, small and well-formed", async () => {
    expect((await send(crashReport("x", { "Sec-Fetch-Site": "cross-site" }))).status).toBe(403);
    expect((await send(crashReport("x", { Origin: "https://evil.example" }))).status).toBe(403);
    expect((await send(crashReport("x", { Origin: ORIGIN }))).status).toBe(204);
    const tooBig = crashReport("x".repeat(3000));
    expect((await send(tooBig)).status).toBe(413);
    const notJson = new Request(`${ORIGIN}/report/island`, {
      method: "POST",
      headers: { "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json" },
      body: "{not json",
    });
    expect((await send(notJson)).status).toBe(400);
    expect((await send(new Request(`${ORIGIN}/report/island`))).status).toBe(404);
  });

  it("is rate-limited per client address", async () => {
    const ip = clientIp();
    const report = async () =>
      (await send(crashReport("TypeError: boom", { "Sec-Fetch-Site": "same-origin", "CF-Connecting-IP": ip }), ""))
        .status;
    // The rate limits count on the test's clock (docs/testing.md): ten a minute, the eleventh refused, exactly.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt++) statuses.push(await report());
    expect(statuses.slice(0, 10).every((status) => status === 204)).toBe(true);
    expect(statuses).toContain(429);
    expect(statuses.at(-1)).toBe(429);
    rateLimitClock.advance(RETRY_AFTER_SECONDS);
    expect(await report()).toBe(204);
  });
});
