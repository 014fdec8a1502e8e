import { type Plugin, parseAst } from "vite";

// The worker renders the islands (islands/*.tsx) to HTML and nothing more: React's server renderer calls no effect
// (useEffect, useLayoutEffect and useInsertionEffect are no-ops there) and writes no event handler (an `on…` prop of
// an HTML element is skipped whatever its value). Yet the worker's bundle carried that code, and all it reaches: the
// native bridge's protocol, the session guard's storage watch, WebAuthn's JSON, the modals' dialog handling, the
// crash reports, and the chunks they import on demand. In the worker's build only (the browser's islands are left
// as they are), this gives every effect an empty function and every handler of an HTML element `undefined`, so the
// minifier drops what only they reached. The HTML is byte for byte the same (`npm run profile -- --parts pages`).
//
// Left as they are: onLoad and onError (React reads them to decide whether a <link> or <script> is hoisted), props
// of custom elements (a tag with a dash: React writes their string values), props of components (a component may
// use them while rendering), and effects reached other than by a named import from "react".

const EFFECT_HOOKS = new Set(["useEffect", "useLayoutEffect", "useInsertionEffect"]);
const JSX_FUNCTIONS = new Set(["jsx", "jsxs", "jsxDEV"]);
const HANDLER = /^on[A-Z]/;
const READ_ON_THE_SERVER = new Set(["onLoad", "onError"]);

interface AstNode {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is AstNode =>
  typeof value === "object" && value !== null && typeof (value as AstNode).type === "string";

/** The name a property key or import specifier spells, whether an identifier or a string literal. */
function nameOf(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === "Identifier") return node.name as string;
  if (node.type === "Literal" && typeof node.value === "string") return node.value;
  return undefined;
}

/** The local names bound to `imported` names of `source` by the module's import declarations. */
function localNames(program: AstNode, source: string, imported: ReadonlySet<string>): Set<string> {
  const names = new Set<string>();
  for (const statement of program.body as AstNode[]) {
    if (statement.type !== "ImportDeclaration" || (statement.source as AstNode).value !== source) continue;
    if (statement.importKind === "type") continue;
    for (const specifier of statement.specifiers as AstNode[]) {
      const name = nameOf(specifier.imported);
      if (specifier.type === "ImportSpecifier" && name && imported.has(name))
        names.add((specifier.local as AstNode).name as string);
    }
  }
  return names;
}

type Edit = readonly [start: number, end: number, text: string];

/** The edits that empty `code`'s effects and drop its HTML elements' handlers; none for a module without either. */
export function serverOnlyEdits(code: string): Edit[] {
  if (!code.includes("react")) return [];
  const program = parseAst(code, { lang: "js" }) as unknown as AstNode;
  const effects = localNames(program, "react", EFFECT_HOOKS);
  const jsx = localNames(program, "react/jsx-runtime", JSX_FUNCTIONS);
  for (const name of localNames(program, "react/jsx-dev-runtime", JSX_FUNCTIONS)) jsx.add(name);
  if (effects.size === 0 && jsx.size === 0) return [];

  const edits: Edit[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!isNode(node)) return;
    if (node.type === "CallExpression" && isNode(node.callee) && node.callee.type === "Identifier") {
      const callee = node.callee.name as string;
      const [first, second, ...rest] = node.arguments as AstNode[];
      if (effects.has(callee) && first) {
        edits.push([first.start, first.end, "() => {}"]);
        visit(second);
        visit(rest);
        return;
      }
      const tag = first?.type === "Literal" ? first.value : undefined;
      if (jsx.has(callee) && typeof tag === "string" && !tag.includes("-") && second?.type === "ObjectExpression") {
        for (const property of second.properties as AstNode[]) {
          const key = property.type === "Property" && !property.computed ? nameOf(property.key) : undefined;
          if (key && HANDLER.test(key) && !READ_ON_THE_SERVER.has(key)) {
            const value = property.value as AstNode;
            edits.push([value.start, value.end, "void 0"]);
          } else visit(property);
        }
        visit(rest);
        return;
      }
    }
    for (const [key, child] of Object.entries(node)) if (key !== "type" && typeof child === "object") visit(child);
  };
  visit(program);
  return edits;
}

export function applyEdits(code: string, edits: readonly Edit[]): string {
  let result = code;
  for (const [start, end, text] of [...edits].sort((a, b) => b[0] - a[0]))
    result = result.slice(0, start) + text + result.slice(end);
  return result;
}

/** Effects emptied and HTML elements' handlers dropped, in the worker's build of the site's own modules. */
export function serverIslands(): Plugin {
  return {
    name: "server-islands",
    apply: "build",
    applyToEnvironment: (environment) => environment.name === "signin_site",
    // After Vite's own transform: the module is JavaScript, its JSX calls to react/jsx-runtime.
    transform(code, id) {
      if (id.includes("/node_modules/") || id.startsWith("\0") || !/\.[jt]sx?$/.test(id.split("?")[0] ?? "")) return;
      const edits = serverOnlyEdits(code);
      return edits.length ? { code: applyEdits(code, edits), map: null } : undefined;
    },
  };
}
