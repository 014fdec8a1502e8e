import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeEach, describe, it, vi } from "vitest";
import worker from "../../worker/index";
import { expectNoSecrets } from "../support/expectations";
import { formPost } from "../support/forms";
import { SENTRY_TEST_DSN } from "../support/sentryRecorder";
import { clientIp, ORIGIN } from "./helpers";

// SPEC §9 in production, where every request is traced: the spans stream to Sentry as they end, which beforeSend
// never sees, so what the SDK collects of a request must be off at the source (worker/errorReporting.ts). A file of
// its own: the isolate's first Sentry client is production's here, not the development one of the other tests.

const recorder = "https://sentry.test/__envelopes";
const envelopes = async (): Promise<string[]> => (await fetch(recorder)).json();

beforeEach(async () => {
  await fetch(recorder, { method: "DELETE" });
});

describe("production's traces", () => {
  it("send no request body, cookie, header or query in production's traces: a sign-in's password stays here", async () => {
    // Production traces every request (spans streamed as they end, which beforeSend never sees); its session keys are
    // its own (the development key is refused there).
    const production = {
      APP_ENV: "prod",
      SESSION_KEYS: `k1:${"A".repeat(42)}Q`,
    };
    const ctx = createExecutionContext();
    const password = "Tr4ced-Passw0rd!";
    const request = new Request(`${ORIGIN}/signIn?login_challenge=query-secret`, {
      ...formPost(
        { username: "traced.user@example.com", password },
        {
          Origin: ORIGIN,
          Cookie: "__Host-sign-in=cookie-secret",
          "CF-Connecting-IP": clientIp(),
          "X-Secret": "header-secret",
        },
      ),
    });
    const response = await worker.fetch(
      request as Request<unknown, IncomingRequestCfProperties>,
      { ...env, ...production, SENTRY_DSN: SENTRY_TEST_DSN } as Env,
      ctx,
    );
    await response.text();
    await waitOnExecutionContext(ctx);
    const sent = await vi.waitFor(
      async () => {
        const all = (await envelopes()).join("\n");
        if (!all.includes("/signIn")) throw new Error(`no trace of the sign-in recorded yet: ${all.slice(0, 300)}`);
        return all;
      },
      { timeout: 20_000, interval: 50 },
    );
    expectNoSecrets(sent, [
      password,
      "Tr4ced-Passw0rd%21",
      "traced.user",
      "cookie-secret",
      "header-secret",
      "query-secret",
    ]);
  }, 30_000);
});
