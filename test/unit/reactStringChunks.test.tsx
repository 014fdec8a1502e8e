import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { ReactNode } from "react";
import { describe, expect, it } from "vitest";
import { reactStringChunks } from "../../worker/reactStringChunks.vite-plugin";

// The worker's build rewrites React's streaming server so that a page is written as strings and encoded
// once a flush (worker/reactStringChunks.vite-plugin.ts). The rewritten build must stream the same bytes as React's
// own, for ASCII and Japanese text, attributes, inline scripts and a part that arrives after the shell.

const modules = (path: string) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));
// The file vite.config.ts aliases `react-dom/server` to in a build, and the production React it runs with (the
// tests' own NODE_ENV would load React's development build, whose elements the production renderer cannot render).
const FILE = modules("react-dom/cjs/react-dom-server.edge.production.js");
const nodeRequire = createRequire(FILE);
const productionOf: Record<string, string> = {
  react: modules("react/cjs/react.production.js"),
  "react-dom": modules("react-dom/cjs/react-dom.production.js"),
};
const { createElement, Suspense } = nodeRequire(productionOf.react as string) as typeof import("react");
const original = readFileSync(FILE, "utf8");

type Renderer = { renderToReadableStream(children: ReactNode, options?: object): Promise<ReadableStream<Uint8Array>> };

/** Evaluates a CommonJS build of React's server renderer as Node would load it. */
function load(source: string): Renderer {
  const module = { exports: {} as Renderer };
  const requireProduction = (id: string) => nodeRequire(productionOf[id] ?? id);
  new Function("module", "exports", "require", source)(module, module.exports, requireProduction);
  return module.exports;
}

function rewrite(source: string): string {
  const plugin = reactStringChunks();
  const transform = plugin.transform as (code: string, id: string) => { code: string } | undefined;
  const result = transform.call({}, source, FILE);
  if (!result) throw new Error("the plugin left React's edge build alone");
  return result.code;
}

/** Every chunk the stream gives, joined: the bytes a browser receives. */
async function bytes(renderer: Renderer, page: () => ReactNode): Promise<Buffer> {
  const stream = await renderer.renderToReadableStream(page(), { nonce: "n0nce", bootstrapScriptContent: "1" });
  const chunks: Buffer[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** A part that resolves after the shell was flushed: React streams the shell first, then it with its swap script. */
function lateText(text: string): () => ReactNode {
  let ready: Promise<void> | true | undefined;
  return function Late(): ReactNode {
    if (ready === true) return createElement("p", { className: "late" }, text);
    ready ??= new Promise<void>((resolve) =>
      setTimeout(() => {
        ready = true;
        resolve();
      }, 5),
    );
    throw ready;
  };
}

const pages: Record<string, () => ReactNode> = {
  ascii: () =>
    createElement(
      "html",
      { lang: "en" },
      createElement("body", null, createElement("form", { method: "post", action: "/signIn" }, "Sign in & go")),
    ),
  japanese: () =>
    createElement(
      "main",
      { "aria-label": "ログイン画面" },
      createElement("h1", null, "ログイン"),
      createElement("p", null, "IDまたはパスワードが正しくありません。😀 <script>"),
      createElement("input", { name: "loginId", placeholder: "メールアドレス", defaultValue: "ü" }),
    ),
  late: () =>
    createElement(
      "div",
      null,
      createElement("p", null, "設定中…"),
      createElement(
        Suspense,
        { fallback: createElement("span", null, "読み込み中") },
        createElement(lateText("シークレット: JBSWY3DPEHPK3PXP 🔐")),
      ),
    ),
  // React outlines a boundary once what it flushed with the shell is over its progressive chunk size (12,800 bytes
  // of UTF-8): two boundaries of 3,000 Japanese characters are 9,000 bytes each, so the second is outlined; counted
  // in UTF-16 units (3,000 each) both would be inlined.
  outlined: () =>
    createElement(
      "div",
      null,
      ["あ", "い"].map((character) =>
        createElement(
          Suspense,
          { key: character, fallback: createElement("span", null, "読み込み中") },
          createElement("p", null, character.repeat(3000)),
        ),
      ),
    ),
  large: () =>
    createElement(
      "ul",
      null,
      Array.from({ length: 600 }, (_, index) =>
        createElement("li", { key: index, "data-index": index }, `項目 ${index} item`),
      ),
    ),
};

describe("React's streaming server rewritten to write strings", () => {
  const reactsOwn = load(original);
  const rewritten = load(rewrite(original));

  it.each(Object.keys(pages))("streams the same bytes as React's own build: %s", async (name) => {
    const page = pages[name] as () => ReactNode;
    const expected = await bytes(reactsOwn, page);
    const actual = await bytes(rewritten, page);
    expect(actual.length).toBeGreaterThan(0);
    expect(actual.toString("utf8")).toBe(expected.toString("utf8"));
    if (name === "late") expect(expected.toString("utf8")).toMatch(/読み込み中[\s\S]*<script[\s\S]*シークレット/);
    expect(actual.equals(expected)).toBe(true);
  });

  it("keeps pages apart when an isolate streams several at once, as a worker does", async () => {
    const names = ["late", "outlined", "japanese", "late", "large"];
    const alone = await Promise.all(names.map((name) => bytes(reactsOwn, pages[name] as () => ReactNode)));
    const together = await Promise.all(names.map((name) => bytes(rewritten, pages[name] as () => ReactNode)));
    expect(together.map((page) => page.toString("utf8"))).toEqual(alone.map((page) => page.toString("utf8")));
  });

  it("fails the build, naming the passage, when React's source is not the one it was written for", () => {
    const changed = original.replace("function writeChunk(destination, chunk) {", "function writeChunk(d, c) {");
    expect(() => rewrite(changed)).toThrow(
      /no longer holds, once, the passage starting function writeChunk\(destination, chunk\)/,
    );
  });

  it("leaves every other module alone", () => {
    const plugin = reactStringChunks();
    const transform = plugin.transform as (code: string, id: string) => unknown;
    expect(transform.call({}, "export const x = 1;", "/src/worker/index.tsx")).toBeUndefined();
  });
});
