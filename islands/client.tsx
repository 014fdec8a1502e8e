import { type ComponentType, createElement, startTransition } from "react";
import { hydrateRoot } from "react-dom/client";
import { isIslandName } from "./names";
import { islandLoaders } from "./registry";
import { SCRIPT_MARKER_COOKIE, SCRIPT_MARKER_MAX_AGE_SECONDS } from "./scriptMarker";

// The one client entry: finds the server's island hosts and hydrates each on idle with its own props.
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
    return;
  }
  let props: unknown;
  try {
    props = JSON.parse(host.dataset.props ?? "{}");
  } catch {
    console.error(
      `island "${name}" has props that are not JSON; its host element was altered after the server rendered it`,
    );
    return;
  }
  const mod = await islandLoaders[name]();
  const Component = mod.default.Component as unknown as ComponentType<Record<string, unknown>>;
  onIdle(() =>
    startTransition(() => void hydrateRoot(host, createElement(Component, props as Record<string, unknown>))),
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
