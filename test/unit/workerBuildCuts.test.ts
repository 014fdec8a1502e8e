import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { ComponentType, ReactNode } from "react";
import { describe, expect, it } from "vitest";
import { applyEdits, serverOnlyEdits } from "../../worker/serverIslands.vite-plugin";
import { applyCut, cuts } from "../../worker/unreachableCode.vite-plugin";

// What the worker's build leaves out of its upload (docs/performance.md, "The worker's upload"): the islands'
// effects and event handlers (worker/serverIslands.vite-plugin.ts) and library code it never runs
// (worker/unreachableCode.vite-plugin.ts). A page must render to the same bytes without them.

const modules = (path: string) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));
// React's production builds (the tests' own NODE_ENV would load the development ones), as the worker's build has them.
const SERVER = modules("react-dom/cjs/react-dom-server.edge.production.js");
const nodeRequire = createRequire(SERVER);
const React = nodeRequire(modules("react/cjs/react.production.js")) as typeof import("react");
const jsxRuntime = nodeRequire(modules("react/cjs/react-jsx-runtime.production.js")) as object;

type Renderer = { renderToReadableStream(children: ReactNode): Promise<ReadableStream<Uint8Array>> };

/** React's streaming server evaluated as Node would load it, with react-dom's module given as `reactDom`. */
function renderer(reactDom: string): Renderer {
  const module = { exports: {} as Renderer };
  const dom = { exports: {} };
  new Function("module", "exports", "require", reactDom)(dom, dom.exports, () => React);
  const require = (id: string) => (id === "react" ? React : id === "react-dom" ? dom.exports : nodeRequire(id));
  new Function("module", "exports", "require", readFileSync(SERVER, "utf8"))(module, module.exports, require);
  return module.exports;
}
const publishedReactDom = readFileSync(modules("react-dom/cjs/react-dom.production.js"), "utf8");
const published = renderer(publishedReactDom);

async function html(render: Renderer, element: ReactNode): Promise<string> {
  const stream = await render.renderToReadableStream(element);
  return new Response(stream).text();
}

// An island as Vite's transform leaves it for the build: JavaScript, its JSX as calls to react/jsx-runtime.
const island = `import { useEffect, useLayoutEffect, useState } from "react";
import { jsx as _jsx, jsxs as _jsxs } from "react/jsx-runtime";
function Child({ onClose, label }) {
  return _jsx("button", { type: "button", onClick: onClose, children: label });
}
export default function Island() {
  const [count, setCount] = useState(3);
  useEffect(() => {
    globalThis.effectRan = true;
  }, [count]);
  useLayoutEffect(() => {
    globalThis.effectRan = true;
  });
  return _jsxs("form", { action: "/next", onSubmit: (event) => event.preventDefault(), children: [
    _jsx("input", { name: "code", value: String(count), readOnly: true, onChange: (event) => setCount(event.target.value) }),
    _jsx("link", { rel: "stylesheet", href: "/late.css", precedence: "low", onLoad: () => setCount(4) }),
    _jsx("my-widget", { onReady: "go" }),
    _jsx(Child, { label: "Close", onClose: () => setCount(0) }),
  ] });
}`;

/** The island's module evaluated with React's production build (its two imports bound by hand). */
function component(source: string): ComponentType {
  const body = source
    .replace(
      /^import \{ useEffect, useLayoutEffect, useState \} from "react";/m,
      "const { useEffect, useLayoutEffect, useState } = React;",
    )
    .replace(
      /^import \{ jsx as _jsx, jsxs as _jsxs \} from "react\/jsx-runtime";/m,
      "const { jsx: _jsx, jsxs: _jsxs } = jsxRuntime;",
    )
    .replace("export default function Island", "return function Island");
  return new Function("React", "jsxRuntime", body)(React, jsxRuntime) as ComponentType;
}

describe("the worker's islands, without effects and event handlers", () => {
  const edited = applyEdits(island, serverOnlyEdits(island));

  it("empty every effect and drop the handlers of HTML elements only", () => {
    expect(edited).toContain("useEffect(() => {}, [count]);");
    expect(edited).toContain("useLayoutEffect(() => {});");
    expect(edited).not.toContain("effectRan");
    expect(edited).toContain("onSubmit: void 0");
    expect(edited).toContain("onChange: void 0");
    expect(edited).toContain("onClick: void 0");
    // React reads onLoad to decide where a stylesheet goes; a custom element's string props are written out; a
    // component's props are its own.
    expect(edited).toContain("onLoad: () => setCount(4)");
    expect(edited).toContain('onReady: "go"');
    expect(edited).toContain("onClose: () => setCount(0)");
  });

  it("render the same bytes as the island as written", async () => {
    const Before = component(island);
    const After = component(edited);
    const page = (Island: ComponentType) => React.createElement("main", null, React.createElement(Island));
    const expected = await html(published, page(Before));
    expect(expected).toContain('onReady="go"');
    expect(await html(published, page(After))).toBe(expected);
  });

  it("leave a module without React alone", () => {
    expect(serverOnlyEdits('export const onClick = () => fetch("/x");')).toEqual([]);
  });
});

describe("library code the worker's build leaves out", () => {
  it.each(cuts.map((cut) => [cut.module, cut] as const))(
    "%s: every passage is where the cut expects it",
    (module, cut) => {
      const source = readFileSync(modules(module), "utf8");
      const result = applyCut(source, cut);
      expect(result.length).toBeLessThan(source.length);
      for (const { from, to } of cut.passages) if (!to.startsWith(from)) expect(result).not.toContain(from);
    },
  );

  it("fails, naming the module, where a passage is missing or found twice", () => {
    const cut = { module: "some/lib.js", passages: [{ from: "function search() {\n", through: "}\n", to: "" }] };
    expect(() => applyCut("const x = 1;\n", cut)).toThrow(/some\/lib\.js no longer holds, once, the passage/);
    const twice = "function search() {\n}\nfunction search() {\n}\n";
    expect(() => applyCut(twice, cut)).toThrow(/some\/lib\.js/);
  });

  it("leave React's server renderer the react-dom it reads: a page renders the same bytes", async () => {
    const cut = cuts.find(({ module }) => module === "react-dom/cjs/react-dom.production.js");
    if (!cut) throw new Error("no react-dom cut");
    // A part that arrives after the shell, so that the page also carries React's swap script.
    const page = () => {
      let ready: Promise<void> | true | undefined;
      const Late = () => {
        if (ready === true) return React.createElement("p", null, "later");
        ready ??= new Promise<void>((resolve) =>
          setTimeout(() => {
            ready = true;
            resolve();
          }, 5),
        );
        throw ready;
      };
      return React.createElement(
        "html",
        null,
        React.createElement(
          "body",
          null,
          React.createElement("link", { rel: "stylesheet", href: "/site.css", precedence: "default" }),
          React.createElement("p", null, "ログイン"),
          React.createElement(React.Suspense, { fallback: "…" }, React.createElement(Late)),
        ),
      );
    };
    const expected = await html(published, page());
    expect(expected).toContain('data-precedence="default"');
    expect(expected).toContain("later");
    expect(await html(renderer(applyCut(publishedReactDom, cut)), page())).toBe(expected);
  });
});
