import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Plugin } from "vite";

const VIRTUAL_ID = "virtual:islands-manifest";
const RESOLVED_ID = `\0${VIRTUAL_ID}`;
export const CLIENT_ENTRY = "islands/client.tsx";

export interface IslandsManifest {
  /** URL of the client entry module. */
  entry: string;
  /** Chunks the entry imports statically: preloaded on every page with an island. */
  entryImports: string[];
  /** Per island, its chunk and the chunks it imports: preloaded only where the island is used. */
  islands: Record<string, string[]>;
}

interface ViteManifestChunk {
  file: string;
  src?: string;
  imports?: string[];
  dynamicImports?: string[];
}

function staticClosure(manifest: Record<string, ViteManifestChunk>, key: string, seen = new Set<string>()): string[] {
  const chunk = manifest[key];
  if (!chunk || seen.has(key)) return [];
  seen.add(key);
  return [`/${chunk.file}`, ...(chunk.imports ?? []).flatMap((imported) => staticClosure(manifest, imported, seen))];
}

export function readIslandsManifest(clientOutDir: string): IslandsManifest {
  const manifest = JSON.parse(readFileSync(join(clientOutDir, ".vite", "manifest.json"), "utf8")) as Record<
    string,
    ViteManifestChunk
  >;
  const entryChunk = manifest[CLIENT_ENTRY];
  if (!entryChunk)
    throw new Error(`${CLIENT_ENTRY} is missing from the client manifest; build the client environment first`);
  const [entry = "", ...entryImports] = staticClosure(manifest, CLIENT_ENTRY);
  const islands: Record<string, string[]> = {};
  for (const key of entryChunk.dynamicImports ?? []) {
    const name = /islands\/([A-Za-z]+)\.tsx$/.exec(key)?.[1];
    if (name) islands[name] = staticClosure(manifest, key, new Set([CLIENT_ENTRY]));
  }
  return { entry, entryImports, islands };
}

/**
 * Gives the worker the URLs of the island scripts: Vite's dev URL while serving, the hashed files of the
 * client manifest in a build (the client environment is built before the worker, see vite.config.ts).
 */
export function islandsManifestPlugin(): Plugin {
  let clientOutDir: string | undefined;
  return {
    name: "islands-manifest",
    configResolved(config) {
      clientOutDir =
        config.command === "serve"
          ? undefined
          : resolve(config.root, config.environments.client?.build.outDir ?? "dist/client");
    },
    resolveId(id) {
      return id === VIRTUAL_ID ? RESOLVED_ID : undefined;
    },
    load(id) {
      if (id !== RESOLVED_ID) return undefined;
      const manifest: IslandsManifest = clientOutDir
        ? readIslandsManifest(clientOutDir)
        : { entry: `/${CLIENT_ENTRY}`, entryImports: [], islands: {} };
      return `export default ${JSON.stringify(manifest)};`;
    },
  };
}

const PRELOAD_HELPER_ID = "\0vite/preload-helper.js";
/** What Vite's import analysis puts where the preload list of a dynamic import goes, until it writes the bundle. */
const PRELOAD_MARKER = "__VITE_PRELOAD__";

interface Node {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";

/**
 * Takes Vite's wrapper off each dynamic import of a rendered chunk: `__vitePreload(() => import(…), __VITE_PRELOAD__)`
 * becomes `(import(…))`, whatever the helper is named in the chunk. What is taken off is blanked, not cut, so that
 * every position in the chunk stays (its source map holds; the minifier drops the blanks). Other shapes of the
 * wrapper (Vite's `async () => { const {…} = await import(…) … }` for a destructured import) are left as they are.
 */
function withoutPreloadWrappers(code: string, program: Node): string {
  const spans: Array<[start: number, end: number, keep: string]> = [];
  const visit = (node: Node) => {
    const [load, marker] = (node.type === "CallExpression" ? node.arguments : []) as Node[];
    if (
      marker?.type === "Identifier" &&
      marker.name === PRELOAD_MARKER &&
      load?.type === "ArrowFunctionExpression" &&
      load.expression === true &&
      load.async === false &&
      (load.params as unknown[]).length === 0 &&
      isNode(load.body)
    ) {
      spans.push([node.start, load.body.start, "("], [load.body.end, node.end, ")"]);
    }
    for (const value of Object.values(node)) {
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child);
    }
  };
  visit(program);
  let unwrapped = code;
  for (const [start, end, keep] of spans) {
    const blank = keep + code.slice(start + keep.length, end).replace(/[^\n]/g, " ");
    unwrapped = unwrapped.slice(0, start) + blank + unwrapped.slice(end);
  }
  return unwrapped;
}

/**
 * Replaces Vite's runtime preloader in the client build with a pass-through, and takes its wrapper off the islands'
 * dynamic imports. Each page already preloads the chunks of its islands (`<link rel="modulepreload">` from the
 * manifest, pages/layout/Document.tsx), and no island imports CSS, so the helper (about 0.9 KB gzip of the entry)
 * would only repeat that work, and its call around each `import()` is bytes for nothing (island code is
 * budgeted per page). Vite wraps every `import()` after the plugins' transforms; the chunk is unwrapped as it is
 * rendered, before it is minified.
 */
export function islandsWithoutPreloadHelper(): Plugin {
  return {
    name: "islands-without-preload-helper",
    enforce: "pre",
    applyToEnvironment: (environment) => environment.name === "client",
    // A helper of its own for each module that imports it: it then lies in that module's chunk, and once its calls
    // are gone the minifier drops it, where one shared helper would stay, exported to every chunk that imported it.
    resolveId: (id, importer) => (id === PRELOAD_HELPER_ID ? `${PRELOAD_HELPER_ID}?${importer ?? ""}` : undefined),
    load: (id) =>
      id.startsWith(`${PRELOAD_HELPER_ID}?`) ? "export const __vitePreload = (load) => load();" : undefined,
    renderChunk(code) {
      if (!code.includes(PRELOAD_MARKER)) return null;
      return { code: withoutPreloadWrappers(code, this.parse(code) as unknown as Node), map: null };
    },
  };
}
