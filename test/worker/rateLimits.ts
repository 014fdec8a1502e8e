import { env } from "cloudflare:test";
import { inject } from "vitest";

// docs/testing.md, "Limits count on the test's clock". The platform's rate-limit binding (workerd's simple rate
// limiter) counts in fixed windows of the wall clock, so a run of attempts that straddles a window's end sees its
// count start again, on a slow machine more often. The `worker` project's requests (siteFetch, test/worker/helpers.ts)
// therefore count on fakes of the same bindings, with the same limit and period, whose windows move only with
// `rateLimitClock`: a limit test asserts the exact count, and moves the clock past the period to show the next
// attempt let through. Every test starts at a new window with no count. `platformRateLimits()` gives a request
// the platform's own bindings back (the one end-to-end check in rateLimit.test.ts); test/unit/deployConfig.test.ts
// checks what wrangler.toml declares.

/** A binding as wrangler.toml declares it (`[[ratelimits]]`: `simple = { limit, period }`, period in seconds). */
export interface SimpleRateLimit {
  simple: { limit: number; period: number };
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The `worker` project's rate-limit bindings, as miniflare runs them (test/worker/vitest.config.ts). */
    workerRateLimits: Record<string, SimpleRateLimit>;
  }
}

/** The time the fake bindings count by. It stands still: only a test moves it. */
export class RateLimitClock {
  private elapsedMs = 0;

  /** Milliseconds since the clock's start. */
  now(): number {
    return this.elapsedMs;
  }

  /** Moves the clock on; `RETRY_AFTER_SECONDS` (the bindings' period) takes every key into its next window. */
  advance(seconds: number): void {
    this.elapsedMs += seconds * 1000;
  }

  /** On to the next hour's start: a new window of every period (workerd allows 10 and 60 s), nothing counted in it.
   * Each test begins so (rateLimits.setup.ts). */
  nextHour(): void {
    this.elapsedMs = (Math.floor(this.elapsedMs / HOUR_MS) + 1) * HOUR_MS;
  }
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * workerd's simple rate limiter (miniflare's `ratelimit.worker`) on a test's clock: windows of `period` seconds from
 * the clock's start, at most `limit` attempts let through per key and window; a refused attempt is not counted.
 */
export class FakeRateLimit implements RateLimit {
  private window = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    readonly setting: SimpleRateLimit["simple"],
    private readonly clock: RateLimitClock,
  ) {}

  async limit({ key }: RateLimitOptions): Promise<RateLimitOutcome> {
    const window = Math.floor(this.clock.now() / (this.setting.period * 1000));
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = this.counts.get(key) ?? 0;
    if (count >= this.setting.limit) return { success: false };
    this.counts.set(key, count + 1);
    return { success: true };
  }
}

/** The clock of the project's fake bindings: `rateLimitClock.advance(RETRY_AFTER_SECONDS)` ends every window. */
export const rateLimitClock = new RateLimitClock();

let fakes: Partial<Env> | undefined;

/** The binding names and settings the project runs with: production's, two per-IP limits lowered (vitest.config.ts). */
function projectRateLimits(): Record<string, SimpleRateLimit> {
  const provided = inject("workerRateLimits");
  if (!provided || Object.keys(provided).length === 0)
    throw new Error("test/worker/vitest.config.ts provides no workerRateLimits");
  return provided;
}

/** A fake of each of the project's rate-limit bindings, with its limit and period, on `rateLimitClock`. */
export function fakeRateLimits(): Partial<Env> {
  fakes ??= Object.fromEntries(
    Object.entries(projectRateLimits()).map(([name, { simple }]) => [name, new FakeRateLimit(simple, rateLimitClock)]),
  ) as Partial<Env>;
  return fakes;
}

/** The platform's own bindings of the same names (workerd's, on the wall clock): a request's `env` to count on them. */
export function platformRateLimits(): Partial<Env> {
  return Object.fromEntries(
    Object.keys(projectRateLimits()).map((name) => [name, (env as unknown as Record<string, RateLimit>)[name]]),
  ) as Partial<Env>;
}
