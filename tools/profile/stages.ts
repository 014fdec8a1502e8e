import { readFileSync } from "node:fs";

// Summarises a V8 CPU profile of the built worker (tools/profile/run.ts) by stage of a request: each sample's time
// goes to the innermost frame of its stack that belongs to a stage; frames of Node itself (web streams, Headers,
// WebCrypto's JavaScript side) and of V8 builtins pass their time to the stage that called them. The bundle is
// unminified (.profile-build/): rolldown marks where each module starts with a `// path` line, so a frame's line
// says which module (site or library) it is in.

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a stage's time goes in the table; the order is the order of a request. */
export const STAGES = [
  "worker entry (fetch, Sentry check)",
  "error reporting (Sentry)",
  "hono (dispatch, compose, router)",
  "hono context and request (c.header, c.body, c.req)",
  "requestId",
  "requestLog + logEvent (JSON line, console call)",
  "securityHeaders (nonce, CSP, baseline)",
  "configurationCheck + session keys",
  "maintenance",
  "bodyLimit",
  "csrf",
  "brand resolution",
  "appFormAction",
  "knownPathBrand",
  "routeName",
  "cookie header parsing (hono)",
  "sealed cookies (JWE open/seal)",
  "rate limit (overLimit + binding)",
  "digest (SHA-256)",
  "query/form validation (zod)",
  "route handler (routes, flow, identity)",
  "renderPage setup",
  "Document shell",
  "brand theme CSS",
  "page components",
  "React SSR (render)",
  "React SSR (flush/encode chunks)",
  "harness (request loop, body read)",
  "runtime, no site frame (streams, microtasks)",
  "garbage collection",
  "V8 (program)",
] as const;
export type Stage = (typeof STAGES)[number];

const MODULE_MARK = /^\/\/ ((?:\.\.\/)*[\w@.+/-]+\.(?:[cm]?[jt]sx?|css\?raw)|\0virtual:[\w-]+)$/;

/** The module each line of a bundle file is in, from the `// path` lines rolldown writes in an unminified build. */
function moduleLines(file: string): { starts: number[]; modules: string[] } {
  const starts: number[] = [];
  const modules: string[] = [];
  const lines = readFileSync(file, "utf8").split("\n");
  let marked = "?";
  lines.forEach((line, index) => {
    const mark = MODULE_MARK.exec(line);
    if (mark?.[1]) {
      const path = mark[1];
      const inNodeModules = path.lastIndexOf("node_modules/");
      marked = inNodeModules >= 0 ? path.slice(inNodeModules) : path.replace(/^(\.\.\/)+/, "");
      starts.push(index);
      modules.push(marked);
      return;
    }
    // A CommonJS module reached through an alias to its file (vite.config.ts: react-dom/server) gets no mark of
    // its own: its wrapper sits under the next module's mark, up to the wrapper's end.
    const wrapper = CJS_WRAPPER.exec(line);
    const unmarked = wrapper?.[1] ? CJS_MODULES[wrapper[1]] : undefined;
    if (unmarked) {
      starts.push(index);
      modules.push(unmarked);
    } else if (line.startsWith("})))();") && starts.length && modules.at(-1) !== marked) {
      starts.push(index + 1);
      modules.push(marked);
    }
  });
  return { starts, modules };
}

const CJS_WRAPPER = /^var (?:import|require)_(\w+) = \(?(?:\/\* @__PURE__ \*\/ )?__commonJSMin\(/;
const CJS_MODULES: Record<string, string> = {
  react_dom_server_edge_production: "node_modules/react-dom/cjs/react-dom-server.edge.production.js",
};

const REACT_FLUSH =
  /^(flush|write|complete|stringToChunk|stringToPrecomputedChunk|startFlowing|pull|enqueueFlush|byteLengthOfChunk)/;

function stageOfModule(module: string, functionName: string): Stage | undefined {
  if (module.startsWith("node_modules/@sentry/") || module === "worker/errorReporting.ts")
    return "error reporting (Sentry)";
  if (module === "worker/index.tsx") {
    if (functionName === "routeName") return "routeName";
    // The kept matches in front of hono's router (worker/index.tsx) are routing.
    return functionName === "match" ? "hono (dispatch, compose, router)" : "worker entry (fetch, Sentry check)";
  }
  if (module === "worker/middleware/requestId.ts") return "requestId";
  if (module === "worker/middleware/requestLog.ts" || module === "worker/log.ts")
    return "requestLog + logEvent (JSON line, console call)";
  if (module === "worker/middleware/securityHeaders.ts") return "securityHeaders (nonce, CSP, baseline)";
  if (module === "worker/middleware/configurationCheck.tsx" || module === "worker/session/keys.ts")
    return "configurationCheck + session keys";
  if (module === "worker/middleware/maintenance.tsx") return "maintenance";
  if (module.includes("hono/dist/middleware/body-limit")) return "bodyLimit";
  if (module.includes("hono/dist/middleware/csrf")) return "csrf";
  if (module === "worker/middleware/brand.ts" || module === "themes/brands.ts") return "brand resolution";
  if (module === "worker/middleware/appFormAction.ts") return "appFormAction";
  if (module === "worker/middleware/knownPathBrand.tsx") return "knownPathBrand";
  if (module.includes("hono/dist/utils/cookie") || module.includes("hono/dist/helper/cookie"))
    return "cookie header parsing (hono)";
  if (/^worker\/session\/(cookies|sealed|base64url|state|authRequest)\.ts$/.test(module))
    return "sealed cookies (JWE open/seal)";
  if (module === "worker/rateLimit.ts") return "rate limit (overLimit + binding)";
  if (module === "worker/routeKinds.tsx" && functionName === "countRequest") return "rate limit (overLimit + binding)";
  if (module === "worker/session/digest.ts") return "digest (SHA-256)";
  if (module.startsWith("node_modules/zod/") || module.startsWith("node_modules/@hono/zod-validator/"))
    return "query/form validation (zod)";
  if (module.includes("hono/dist/validator")) return "query/form validation (zod)";
  if (module.startsWith("node_modules/hono/dist/")) {
    return /hono\/dist\/(context|request|utils\/(body|url|html|headers|mime))/.test(module)
      ? "hono context and request (c.header, c.body, c.req)"
      : "hono (dispatch, compose, router)";
  }
  if (
    /^worker\/(routes\/|flow\/|identity\/|routeKinds|routes\.tsx|queryParams|formFields|session\/random)/.test(module)
  )
    return "route handler (routes, flow, identity)";
  if (module === "worker/render.tsx") return "renderPage setup";
  if (module === "pages/layout/Document.tsx") return "Document shell";
  if (module.startsWith("themes/")) return "brand theme CSS";
  if (/^(pages|islands|messages|forms)\//.test(module) || module.includes("virtual:")) return "page components";
  if (module.startsWith("node_modules/react-dom/"))
    return REACT_FLUSH.test(functionName) ? "React SSR (flush/encode chunks)" : "React SSR (render)";
  if (module.startsWith("node_modules/react/")) return "React SSR (render)";
  return undefined;
}

interface FrameInfo {
  stage: Stage | undefined;
  /** `name (module:line)`, for the function tables. */
  label: string;
}

/** What the profile says, per stage and per function; times in microseconds. */
export interface ProfileSummary {
  totalUs: number;
  stages: Map<Stage, number>;
  /** Self time per function (its own frames at the top of a stack). */
  selfByFunction: Map<string, number>;
  /** Total time per function (any sample with it on the stack, counted once). */
  totalByFunction: Map<string, number>;
}

/**
 * `bundleOf` names the unminified bundle file a frame's script URL is (else the frame is not the worker's);
 * `harnessFile` ends the URL of the harness's own code, whose log sink and rate-limit stand-ins count as those stages.
 */
export function summarise(
  profile: CpuProfile,
  bundleOf: (url: string) => string | undefined,
  harnessFile = "\0none",
): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const bundles = new Map<string, ReturnType<typeof moduleLines>>();
  const linesOf = (url: string) => {
    const file = bundleOf(url);
    if (file === undefined) return undefined;
    if (!bundles.has(file)) bundles.set(file, moduleLines(file));
    return bundles.get(file);
  };
  const frames = new Map<number, FrameInfo>();
  const frameOf = (id: number): FrameInfo => {
    const known = frames.get(id);
    if (known) return known;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const name = functionName || "(anonymous)";
    let info: FrameInfo;
    const bundle = linesOf(url);
    if (url.endsWith(harnessFile)) {
      info = { stage: "harness (request loop, body read)", label: `${name} (harness)` };
      // The harness's stand-ins for the platform: the log sink and the rate-limit bindings.
      if (functionName === "logSink") info.stage = "requestLog + logEvent (JSON line, console call)";
      if (functionName === "limit") info.stage = "rate limit (overLimit + binding)";
    } else if (bundle) {
      let low = 0;
      let high = bundle.starts.length - 1;
      while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if (bundle.starts[middle]! <= lineNumber) low = middle;
        else high = middle - 1;
      }
      const module = bundle.modules[low] ?? "?";
      info = { stage: stageOfModule(module, functionName), label: `${name} (${module}:${lineNumber + 1})` };
    } else if (functionName === "(garbage collector)") {
      info = { stage: "garbage collection", label: name };
    } else if (functionName === "(program)") {
      info = { stage: "V8 (program)", label: name };
    } else {
      info = { stage: undefined, label: `${name} (${url.replace(/^.*node_modules\//, "") || "native"})` };
    }
    frames.set(id, info);
    return info;
  };
  const summary: ProfileSummary = {
    totalUs: 0,
    stages: new Map(),
    selfByFunction: new Map(),
    totalByFunction: new Map(),
  };
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index + 1] ?? 0;
    if (byId.get(id)?.callFrame.functionName === "(idle)") return;
    summary.totalUs += us;
    let stage: Stage | undefined;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = frameOf(at);
      if (at === id) add(summary.selfByFunction, frame.label, us);
      if (!seen.has(frame.label) && byId.get(at)!.callFrame.functionName !== "(root)") {
        seen.add(frame.label);
        add(summary.totalByFunction, frame.label, us);
      }
      stage ??= frame.stage;
    }
    const final = stage ?? "runtime, no site frame (streams, microtasks)";
    summary.stages.set(final, (summary.stages.get(final) ?? 0) + us);
  });
  return summary;
}
