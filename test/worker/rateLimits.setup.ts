import { beforeEach } from "vitest";
import { rateLimitClock } from "./rateLimits";

// Every test of the `worker` project begins at a new window of the fake rate-limit bindings (test/worker/rateLimits.ts),
// with no count from an earlier test: a test counts only its own attempts, however the files share the isolate.
beforeEach(() => {
  rateLimitClock.nextHour();
});
