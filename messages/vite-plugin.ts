import { jaModel, Parser } from "budoux";
import { type Plugin, parseSync } from "vite";

// Japanese that breaks where it reads (docs/accessibility.md, "Japanese line breaks"). At build time, BudouX's
// Japanese model finds the phrase boundaries of the UI text in messages/ (and of the brand data's prose,
// themes/vite-plugin.ts), and a zero-width space (U+200B) is written at each. The stylesheet lets a line break only
// there (`word-break: keep-all`), so the worker ships already-marked strings and neither it nor the islands carry
// BudouX. Node only: the worker imports the transformed modules, never this file.

/** The phrase-boundary marker: a zero-width space, as BudouX itself writes (an allowed break, drawn as nothing). */
export const PHRASE_BREAK = "\u200b";

/** Text worth marking: it holds kana or kanji. URLs, addresses, codes and numbers do not, and are left alone. */
const JAPANESE = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;
/** Stands for an interpolated value while a template is segmented (a private-use character the model does not know). */
const HOLE = "\uE000";

let parser: Parser | undefined;

/**
 * What no line may start with (Japanese line-breaking rules, JIS X 4051's 行頭禁則: closing brackets, punctuation,
 * the prolonged sound mark, small kana) and what no line may end with (opening brackets). A break after a zero-width
 * space is allowed before any of them, so no marker goes there.
 */
const NO_BREAK_BEFORE =
  /[\s、。，．・：；？！ー〜ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ）」』】〕〉》｝］!?),.:;\]}\uDC00-\uDFFF]/;
const NO_BREAK_AFTER = /[\s（「『【〔〈《｛［([{]/;

/** The boundaries BudouX finds in `text`, but those beside white space (already a break) and those NO_BREAK_* forbid. */
function boundaries(text: string): number[] {
  parser ??= new Parser(jaModel);
  return parser
    .parseBoundaries(text)
    .filter((at) => !NO_BREAK_AFTER.test(text[at - 1] ?? "") && !NO_BREAK_BEFORE.test(text[at] ?? ""));
}

/** `text` with a PHRASE_BREAK at each phrase boundary; text without Japanese comes back as it is. */
export function markPhrases(text: string): string {
  return markTemplate([text])[0] ?? text;
}

/**
 * The parts of a template around its interpolations, each marked: the whole is segmented as one sentence (each
 * interpolation stands in as one unknown character), so a phrase that spans a part's edge is seen whole.
 */
export function markTemplate(parts: readonly string[]): string[] {
  return markJoined(parts, HOLE);
}

/** Runs of text that read as one (the text nodes of a paragraph with links in it), each marked. */
export function markRuns(parts: readonly string[]): string[] {
  return markJoined(parts, "");
}

function markJoined(parts: readonly string[], joiner: string): string[] {
  const whole = parts.join(joiner);
  if (!JAPANESE.test(whole)) return [...parts];
  const cuts = new Set(boundaries(whole));
  let start = 0;
  return parts.map((part) => {
    // A cut where two parts meet goes once, at the end of the first.
    const own = [...cuts].filter((at) => at >= start && at <= start + part.length);
    for (const at of own) cuts.delete(at);
    const at = start;
    start += part.length + joiner.length;
    let marked = part;
    for (const cut of own.reverse()) marked = `${marked.slice(0, cut - at)}${PHRASE_BREAK}${marked.slice(cut - at)}`;
    return marked;
  });
}

/**
 * What stays unmarked in each module of messages/, by the path of its keys (`common.titlePrefix`; a path names
 * everything under it): text that is never wrapped on a page, or that is compared, copied or sent on as a value.
 */
export const UNMARKED: Record<string, Record<string, string>> = {
  "ja.ts": {
    "common.titlePrefix": "the <title>, which nothing wraps and bookmarks, history and share sheets copy",
    "common.errorTitlePrefix": "the <title>, as above",
    "common.plainError": "a text/plain answer: no stylesheet keeps a line from breaking anywhere else",
    "common.showPassword": "an aria-label: never drawn, so never wrapped",
    "common.hidePassword": "an aria-label, as above",
    "common.logoAlt": "an image's alt text",
    "fieldLabels.codePlaceholder": "a placeholder: one line inside its field",
    "screens.mfaSetupTotp.qrAlt": "the QR code's aria-label",
    loginContextNames: "sent to the identity API as values, which its mails and pages show",
    authenticatorNames: "a passkey's name when it has none: the rename field's value, posted back as the new name",
    "screens.passkeys.defaultName": "a passkey's name, as above",
    "screens.operation.yen": "an amount: its number and 円 read as one, never broken apart",
  },
  "modals.ts": {},
};

/** A node's fields that hold no text a page shows: its position, and TypeScript's types. */
const NOT_TEXT = new Set(["type", "start", "end", "typeAnnotation", "typeParameters", "typeArguments", "returnType"]);

type Node = { type: string; start: number; end: number; [key: string]: unknown };
const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as Node).type === "string";

/**
 * The module's source with every Japanese string literal and template marked, but under the `unmarked` paths. Keys,
 * import paths and types are not text. Fails on an unmarked path that names nothing, so that a renamed key cannot
 * quietly become marked.
 */
export function markMessageModule(source: string, file: string, unmarked: Record<string, string> = {}): string {
  const parsed = parseSync(file, source, { lang: "ts", sourceType: "module" });
  if (parsed.errors.length) throw new Error(`${file}: ${parsed.errors.map((error) => error.message).join("; ")}`);
  const edits: { start: number; end: number; text: string }[] = [];
  const used = new Set<string>();
  const excludedBy = (path: string[]) =>
    Object.keys(unmarked).find((name) => {
      const joined = path.join(".");
      return joined === name || joined.startsWith(`${name}.`);
    });

  const visit = (node: unknown, path: string[]): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, path);
      return;
    }
    if (!isNode(node)) return;
    switch (node.type) {
      case "ImportDeclaration":
      case "ExportAllDeclaration":
      case "TSTypeAliasDeclaration":
      case "TSInterfaceDeclaration":
      case "TSTypeAnnotation":
        return;
      case "ExportNamedDeclaration":
        visit(node.declaration, path);
        return;
      case "VariableDeclarator": {
        const id = node.id as Node & { name?: string };
        visit(node.init, id.name ? [id.name] : path);
        return;
      }
      case "Property": {
        const key = node.key as Node & { name?: string; value?: unknown };
        const name = node.computed ? undefined : (key.name ?? String(key.value));
        visit(node.value, name === undefined ? path : [...path, name]);
        return;
      }
      case "Literal": {
        if (typeof node.value !== "string") return;
        const excluded = excludedBy(path);
        if (excluded) {
          used.add(excluded);
          return;
        }
        const marked = markPhrases(node.value);
        if (marked !== node.value) edits.push({ start: node.start, end: node.end, text: JSON.stringify(marked) });
        return;
      }
      case "TemplateLiteral": {
        const excluded = excludedBy(path);
        if (excluded) {
          used.add(excluded);
          return;
        }
        const quasis = node.quasis as (Node & { value: { raw: string; cooked: string } })[];
        const marked = markTemplate(quasis.map(({ value }) => value.cooked));
        quasis.forEach((quasi, index) => {
          const text = marked[index] ?? "";
          if (text === quasi.value.cooked) return;
          // The raw text sits after the quasi's opening ` or }; one with escapes is not rewritten.
          const start = source.indexOf(quasi.value.raw, quasi.start);
          if (quasi.value.raw !== quasi.value.cooked || start < 0)
            throw new Error(`${file}: a template with escapes cannot be marked: ${quasi.value.raw}`);
          edits.push({ start, end: start + quasi.value.raw.length, text });
        });
        for (const expression of node.expressions as unknown[]) visit(expression, path);
        return;
      }
    }
    for (const [field, value] of Object.entries(node)) if (!NOT_TEXT.has(field)) visit(value, path);
  };
  visit(parsed.program.body, []);

  const stale = Object.keys(unmarked).filter((name) => !used.has(name));
  if (stale.length) throw new Error(`${file}: unmarked paths that name no text: ${stale.join(", ")}`);
  let out = source;
  for (const { start, end, text } of edits.sort((a, b) => b.start - a.start))
    out = `${out.slice(0, start)}${text}${out.slice(end)}`;
  return out;
}

const MESSAGE_MODULE = /[\\/]messages[\\/]([^\\/]+\.ts)$/;

/**
 * Marks the phrase boundaries of messages/ as its modules are loaded, in every environment that imports them (the
 * worker's build, `vite dev`, and the vitest projects that render pages), so that each sees the strings the worker
 * ships. A module of messages/ not listed in UNMARKED fails the build: its text must be looked at first.
 *
 * @example plugins: [japanesePhrases(), cloudflare()]
 */
export function japanesePhrases(): Plugin {
  return {
    name: "japanese-phrases",
    enforce: "pre",
    transform: {
      filter: { id: /[\\/]messages[\\/][^\\/]+\.ts(\?.*)?$/ },
      handler(code, id) {
        const file = id.split("?")[0] ?? id;
        const name = MESSAGE_MODULE.exec(file)?.[1];
        if (!name || name === "vite-plugin.ts" || name.endsWith(".test.ts")) return undefined;
        const unmarked = UNMARKED[name];
        if (!unmarked) throw new Error(`${file}: a module of messages/ that UNMARKED does not list`);
        return { code: markMessageModule(code, file, unmarked), map: null };
      },
    },
  };
}
