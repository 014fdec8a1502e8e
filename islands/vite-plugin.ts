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

/**
 * Replaces Vite's runtime preloader in the client build with a pass-through. Each page already preloads the chunks
 * of its islands (`<link rel="modulepreload">` from the manifest, pages/layout/Document.tsx), so the helper (about
 * 0.9 KB gzip of the entry) would only repeat that work (issue 12: island code is budgeted per page).
 */
export function islandsWithoutPreloadHelper(): Plugin {
  return {
    name: "islands-without-preload-helper",
    enforce: "pre",
    applyToEnvironment: (environment) => environment.name === "client",
    resolveId: (id) => (id === PRELOAD_HELPER_ID ? id : undefined),
    load: (id) => (id === PRELOAD_HELPER_ID ? "export const __vitePreload = (load) => load();" : undefined),
  };
}
