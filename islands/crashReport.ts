import type { CrashPhase, CrashSource } from "./names";

// An island that cannot load or render is reported to the worker (POST /report/island): no Sentry SDK here.

const REPORT_PATH = "/report/island";

export function reportCrash(island: CrashSource, phase: CrashPhase, error: unknown): void {
  const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 500);
  const body = JSON.stringify({ island, phase, message });
  // Every browser and webview the brands support has sendBeacon; a report that cannot be sent is dropped.
  navigator.sendBeacon(REPORT_PATH, new Blob([body], { type: "application/json" }));
}
