import { createElement, type ReactNode, startTransition, useEffect } from "react";
import { hydrateRoot } from "react-dom/client";
import { reportCrash } from "./crashReport";
import type { IslandName } from "./names";
import { islands } from "./registry";
import { SCRIPT_MARKER_COOKIE, SCRIPT_MARKER_MAX_AGE_SECONDS } from "./scriptMarker";

// The one client entry: finds the server's island hosts and hydrates each on idle with its own props. An island
// that cannot load or render is reported to the worker (crashReport.ts).

const onIdle: (run: () => void) => void =
  typeof window.requestIdleCallback === "function"
    ? (run) => window.requestIdleCallback(run, { timeout: 500 })
    : (run) => setTimeout(run, 1);

/**
 * Marks its host `data-hydrated` once the island's first render has committed and its effects have run (a parent's
 * effects run after its children's): what a browser test waits for before it acts on an island.
 */
function Hydrated({ host, children }: { host: HTMLElement; children?: ReactNode }) {
  useEffect(() => {
    host.setAttribute("data-hydrated", "");
  }, [host]);
  return children;
}

async function hydrateHost(host: HTMLElement): Promise<void> {
  const name = host.dataset.island as IslandName;
  const load = Object.hasOwn(islands, name) ? islands[name] : undefined;
  // Markup first: a host the bundle does not know, or props that are not JSON, mean that the server's markup and
  // this bundle disagree, or that the host was altered after the server rendered it.
  let phase: "markup" | "load" = "markup";
  try {
    const props = JSON.parse(host.dataset.props ?? "{}") as Record<string, unknown>;
    if (!load) throw new Error(`no island "${name}"`);
    phase = "load";
    const { default: Component } = await load(props);
    const crashed = (error: unknown) => reportCrash(name, "render", error);
    onIdle(() =>
      startTransition(
        () =>
          void hydrateRoot(host, createElement(Hydrated, { host }, createElement(Component, props)), {
            onUncaughtError: crashed,
            onRecoverableError: crashed,
          }),
      ),
    );
  } catch (error) {
    reportCrash(load ? name : "unknown", phase, error);
  }
}

const hydrated = new WeakSet<HTMLElement>();

function hydrateAll(): void {
  for (const host of document.querySelectorAll<HTMLElement>("[data-island]")) {
    if (hydrated.has(host)) continue;
    hydrated.add(host);
    void hydrateHost(host);
  }
}

// Whatever no island caught (an event handler's throw, an API an older engine lacks) is reported too: the first few
// of a page, so that one broken handler does not spend the report limit of the address.
let uncaughtReports = 0;
const reportUncaught = (error: unknown) => {
  if (uncaughtReports++ < 3) reportCrash("page", "uncaught", error);
};
window.addEventListener("error", (event) => reportUncaught(event.error ?? event.message));
window.addEventListener("unhandledrejection", (event) => reportUncaught(event.reason));

// biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing in the older webviews of the brands' apps.
document.cookie = `__Host-${SCRIPT_MARKER_COOKIE}=1; Path=/; Secure; SameSite=Strict; Max-Age=${SCRIPT_MARKER_MAX_AGE_SECONDS}`;
hydrateAll();
// Islands of a part the server streams late (behind a spinner) are in the document once it has been parsed.
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", hydrateAll, { once: true });
