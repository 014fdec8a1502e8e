import type { Plugin } from "vite";

// Library code the worker bundles but never runs, left out of its build (the upload is budgeted: docs/performance.md).
// Tree-shaking cannot drop it: the library is CommonJS (a module's exports are one object), or the code hangs off a
// class or a function the worker does call. So the passages that reach it are rewritten here, at build time, in the
// worker's build only; tests, `vite dev` and the browser's build run the libraries as published. Each passage is
// matched exactly once or the build fails naming it, so a library upgrade cannot ship a cut half made; a cut whose
// module the build no longer meets is warned about. Code a cut leaves out throws if it is ever reached, naming this
// file, rather than doing something else quietly.

interface Passage {
  /** The passage's first line(s), exactly as published; it must occur once. */
  from: string;
  /** Where it ends, when longer: the passage runs from `from` to the end of the first `through` after it. */
  through?: string;
  to: string;
}

export interface Cut {
  /** The module, from its package's name. */
  module: string;
  passages: Passage[];
}

export const cuts: Cut[] = [
  // qrcode 1.5.4. pages/layout/QrCode.tsx hands create() its own segments and mask 0 (pages/layout/qrMask.ts finds
  // the best mask), so qrcode's optimal segmentation of a string (a graph search through dijkstrajs) and its mask
  // search never run. Should either be asked for, create() throws.
  {
    module: "qrcode/lib/core/qrcode.js",
    passages: [
      {
        from: "  } else if (typeof data === 'string') {\n",
        through: "    segments = Segments.fromString(data, estimatedVersion || 40)\n",
        to: "  } else if (typeof data === 'string') {\n    throw new Error('qrcode: no segment search in this build (worker/unreachableCode.vite-plugin.ts)')\n",
      },
      {
        from: "    maskPattern = MaskPattern.getBestMask(modules,\n      setupFormatInfo.bind(null, modules, errorCorrectionLevel))\n",
        to: "    throw new Error('qrcode: no mask search in this build (worker/unreachableCode.vite-plugin.ts)')\n",
      },
    ],
  },
  {
    module: "qrcode/lib/core/segments.js",
    passages: [
      { from: "const dijkstra = require('dijkstrajs')\n", to: "" },
      {
        from: "exports.fromString = function fromString (data, version) {\n",
        through: "    getSegmentsFromString(data, Utils.isKanjiModeEnabled())\n  )\n}\n",
        to: "",
      },
    ],
  },
  {
    module: "qrcode/lib/core/mask-pattern.js",
    passages: [
      {
        from: "exports.getPenaltyN1 = function getPenaltyN1 (data) {\n",
        through: "  return k * PenaltyScores.N4\n}\n",
        to: "",
      },
      {
        from: "exports.getBestMask = function getBestMask (data, setupFormatFunc) {\n",
        through: "  return bestPattern\n}\n",
        to: "",
      },
    ],
  },
  // react-dom 19.3.1. React's server renderer reads react-dom's internals (its dispatcher for preload and preinit);
  // no module of the worker imports react-dom's own API (portals, flushSync, preload…), and the build fails if one
  // does (resolveId below), so that API is left out.
  {
    module: "react-dom/cjs/react-dom.production.js",
    passages: [
      {
        from: "exports.browser = function (reason) {\n",
        through:
          "exports.useFormStatus = function () {\n  return ReactSharedInternals.H.useHostTransitionStatus();\n};\n",
        to: "",
      },
    ],
  },
  // hono 4.13.19. The app's deprecated mount() (hono/mount is its successor), with the request rewriting only it
  // uses; worker/index.tsx mounts nothing.
  {
    module: "hono/dist/hono-base.js",
    passages: [
      {
        from: "\tmount(path, applicationHandler, options) {\n",
        through: '\t\tthis.#addRoute("ALL", mergePath(path, "*"), handler);\n\t\treturn this;\n\t}\n',
        to: '\tmount() {\n\t\tthrow new Error("hono: no app.mount() in this build (worker/unreachableCode.vite-plugin.ts)");\n\t}\n',
      },
    ],
  },
  // @sentry/cloudflare 11.0.0. worker/errorReporting.ts gives the SDK its integrations (defaultIntegrations), so the
  // SDK's own default list is never read: without it, the integrations only it names are left out too.
  {
    module: "@sentry/cloudflare/build/esm/prod/baseSdk.js",
    passages: [
      {
        from: "function getBaseDefaultIntegrations(options) {\n  return [\n",
        through: "    ...getRegisteredChannelIntegrations()\n  ];\n}\n",
        to: 'function getBaseDefaultIntegrations() {\n  throw new Error("@sentry/cloudflare: no default integrations in this build; worker/errorReporting.ts names them");\n}\n',
      },
    ],
  },
];

/** The one place `text` occurs in `code` at or after `after`; fails unless there is exactly one. */
function onlyPlace(code: string, text: string, after: number, module: string): number {
  const at = code.indexOf(text, after);
  if (at < 0 || code.indexOf(text, at + 1) >= 0)
    throw new Error(
      `unreachableCode: ${module} no longer holds, once, the passage starting ${JSON.stringify(text.slice(0, 60))}`,
    );
  return at;
}

/** The module with its cut's passages rewritten. */
export function applyCut(code: string, { module, passages }: Cut): string {
  let result = code;
  for (const { from, through, to } of passages) {
    const start = onlyPlace(result, from, 0, module);
    const end = through
      ? onlyPlace(result, through, start + from.length, module) + through.length
      : start + from.length;
    result = result.slice(0, start) + to + result.slice(end);
  }
  return result;
}

/** The module that alone may import react-dom in the worker's build (its cut leaves react-dom's own API out). */
const REACT_DOM_READER = "/node_modules/react-dom/cjs/react-dom-server.edge.production.js";

export function unreachableCode(): Plugin {
  const met = new Set<string>();
  return {
    name: "unreachable-code",
    apply: "build",
    enforce: "pre",
    applyToEnvironment: (environment) => environment.name === "signin_site",
    resolveId(source, importer) {
      if (source === "react-dom" && importer && !importer.endsWith(REACT_DOM_READER))
        this.error(
          `unreachableCode: ${importer} imports react-dom, whose own API the worker's build leaves out; lift that cut first`,
        );
      return undefined;
    },
    transform(code, id) {
      const path = id.split("?")[0] ?? id;
      const cut = cuts.find(({ module }) => path.endsWith(`/node_modules/${module}`));
      if (!cut) return undefined;
      met.add(cut.module);
      return { code: applyCut(code, cut), map: null };
    },
    buildEnd(error) {
      if (error) return;
      const unmet = cuts.filter(({ module }) => !met.has(module)).map(({ module }) => module);
      // A warning, not a failure: a build with React's development builds (NODE_ENV other than production) has none
      // of react-dom's production module. test/unit/workerBuildCuts.test.ts holds every cut to its library.
      if (unmet.length) this.warn(`unreachableCode: the worker's build does not bundle ${unmet.join(", ")}`);
    },
  };
}
