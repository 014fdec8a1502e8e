import { type ComponentType, createElement, startTransition } from "react";
import { hydrateRoot } from "react-dom/client";
import { isIslandName } from "./names";
import { islandLoaders } from "./registry";
import { SCRIPT_MARKER_COOKIE, SCRIPT_MARKER_MAX_AGE_SECONDS } from "./scriptMarker";

// The one client entry: finds the server's island hosts and hydrates each on idle with its own props. An island
// that cannot load or render is reported to the worker (POST /report/island, issue 11): no Sentry SDK here.

const REPORT_PATH = "/report/island";

function reportCrash(island: string, phase: "load" | "render" | "markup", error: unknown): void {
  const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 500);
  const body = JSON.stringify({ island, phase, message });
  const sent = navigator.sendBeacon?.(REPORT_PATH, new Blob([body], { type: "application/json" }));
  if (!sent)
    void fetch(REPORT_PATH, {
      method: "POST",
      body,
      headers: { "Content-Type": "application/json" },
      keepalive: true,
    }).catch(() => undefined);
}
const onIdle: (run: () => void) => void =
  typeof window.requestIdleCallback === "function"
    ? (run) => window.requestIdleCallback(run, { timeout: 500 })
    : (run) => setTimeout(run, 1);

async function hydrateHost(host: HTMLElement): Promise<void> {
  const name = host.dataset.island ?? "";
  if (!isIslandName(name)) {
    console.error(
      `island host names "${name}", which is not in islands/registry.ts; the server markup and the client bundle disagree`,
    );
    reportCrash("unknown", "markup", new Error("an island host names no known island"));
    return;
  }
  let props: unknown;
  try {
    props = JSON.parse(host.dataset.props ?? "{}");
  } catch {
    console.error(
      `island "${name}" has props that are not JSON; its host element was altered after the server rendered it`,
    );
    reportCrash(name, "markup", new Error("island props are not JSON"));
    return;
  }
  let mod: Awaited<ReturnType<(typeof islandLoaders)[typeof name]>>;
  try {
    mod = await islandLoaders[name]();
  } catch (error) {
    reportCrash(name, "load", error);
    return;
  }
  const Component = mod.default.Component as unknown as ComponentType<Record<string, unknown>>;
  const crashed = (error: unknown) => reportCrash(name, "render", error);
  onIdle(() =>
    startTransition(
      () =>
        void hydrateRoot(host, createElement(Component, props as Record<string, unknown>), {
          onUncaughtError: crashed,
          onRecoverableError: crashed,
        }),
    ),
  );
}

const hydrated = new WeakSet<HTMLElement>();

function hydrateAll(): void {
  for (const host of document.querySelectorAll<HTMLElement>("[data-island]")) {
    if (hydrated.has(host)) continue;
    hydrated.add(host);
    void hydrateHost(host);
  }
}

// biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing in the older webviews of the brands' apps.
document.cookie = `__Host-${SCRIPT_MARKER_COOKIE}=1; Path=/; Secure; SameSite=Strict; Max-Age=${SCRIPT_MARKER_MAX_AGE_SECONDS}`;
hydrateAll();
// Islands of a part the server streams late (behind a spinner) are in the document once it has been parsed.
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", hydrateAll, { once: true });
