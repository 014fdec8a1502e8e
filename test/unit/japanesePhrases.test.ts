import { readFileSync } from "node:fs";
import brandData from "virtual:brand-data";
import { describe, expect, it } from "vitest";
import { loginContextNames, screens } from "../../messages/ja";
import {
  markMessageModule,
  markPhrases,
  markRuns,
  markTemplate,
  PHRASE_BREAK,
  UNMARKED,
} from "../../messages/vite-plugin";
import { buildBrandData, markSupportHtmlPhrases, sanitiseSupportHtml, withPhraseBreaks } from "../../themes/build";
import { withoutPhraseBreaks } from "../support/phraseBreaks";

// The phrase-boundary marking of the UI text (messages/vite-plugin.ts, docs/accessibility.md "Japanese line breaks"):
// where the markers go, where they never go, and that marking changes nothing else. `toContain` reads text without
// its markers here (test/support/phraseBreaks.setup.ts): the markers themselves are looked for with `includes`.

/** A marked string with its markers shown as ｜. */
const shown = (text: string) => text.split(PHRASE_BREAK).join("｜");

describe("markPhrases", () => {
  it("marks BudouX's phrase boundaries", () => {
    expect(shown(markPhrases("パスキーでのログインが必要です"))).toBe("パスキーでの｜ログインが｜必要です");
    expect(shown(markPhrases("アカウントをお持ちでない方はこちら（新規登録）"))).toBe(
      "アカウントを｜お持ちでない方は｜こちら｜（新規登録）",
    );
  });

  it("leaves text without kana or kanji alone: addresses, numbers, codes", () => {
    for (const text of ["https://support.example/faq", "support@kazahana-sec.example", "0120-981-234", "ABCD1234"])
      expect(markPhrases(text)).toBe(text);
  });

  it("never puts a marker before what may not start a line, after what may not end one, or beside a space", () => {
    // BudouX alone cuts 「?|!」 inside the parenthesis; a break there would start a line with 「!）」.
    expect(shown(markPhrases("記号（例：@#%&?!）を1文字以上含めてください"))).toBe(
      "記号｜（例：@#%&?!）を｜1文字以上｜含めてください",
    );
    const everything = Object.values(screens).flatMap((screen) =>
      Object.values(screen).flatMap((value) => (typeof value === "string" ? [value] : [])),
    );
    expect(everything.length).toBeGreaterThan(100);
    for (const text of everything) {
      expect(text).not.toMatch(/\u200b[、。）」』】！？：ーぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ!?)]/);
      expect(text).not.toMatch(/[（「『【(]\u200b/);
      expect(text).not.toMatch(/\s\u200b|\u200b\s/);
    }
  });
});

describe("markTemplate and markRuns", () => {
  it("segments a template as one sentence, its interpolations in their places", () => {
    expect(markTemplate(["", " 宛に6桁の確認コードを送信しました。"]).map(shown)).toEqual([
      "",
      " 宛に｜6桁の｜確認コードを｜送信しました。",
    ]);
    expect(markTemplate(["全", "件のうち、新しい", "件を表示しています。"]).map(shown)).toEqual([
      "全",
      "件の｜うち、｜新しい｜",
      "件を｜表示しています。",
    ]);
  });

  it("segments runs of text (a paragraph's text nodes) as one: a marker where two runs meet is written once", () => {
    const runs = markRuns(["ログインや口座開設でお困りの方は、", "よくある質問", "もあわせてご覧ください。"]);
    expect(withoutPhraseBreaks(runs.join(""))).toBe(
      "ログインや口座開設でお困りの方は、よくある質問もあわせてご覧ください。",
    );
    expect(runs.join("").includes(`${PHRASE_BREAK}${PHRASE_BREAK}`)).toBe(false);
    expect(shown(runs[0] ?? "")).toMatch(/、｜$/);
  });
});

describe("markMessageModule", () => {
  const module = `import type { X } from "./日本語";
type Kind = "閉じる" | "戻る";
const shared = "しばらく時間をおいてお試しください";
export const texts = {
  "キー": "パスキーでのログインが必要です",
  title: "認証-",
  nested: { label: "パスワードを表示", values: ["ログインに使えるパスキーの一覧です。"] },
  lead: (name: string): string => \`\${name}のサービスを利用するため、情報を提供します。\`,
} as const satisfies Record<string, unknown>;
`;

  it("marks string literals and templates, never keys, types or import paths, nor an unmarked path", () => {
    const marked = markMessageModule(module, "texts.ts", {
      "texts.title": "the title",
      "texts.nested.label": "a label",
    });
    expect(withoutPhraseBreaks(marked)).toBe(module);
    for (const part of [
      `"パスキーでの${PHRASE_BREAK}ログインが${PHRASE_BREAK}必要です"`,
      `"しばらく${PHRASE_BREAK}時間を`,
      `"ログインに${PHRASE_BREAK}使える`,
      `\${name}の${PHRASE_BREAK}サービスを`,
    ])
      expect(marked.includes(part), shown(part)).toBe(true);
    for (const untouched of ['"./日本語"', '"閉じる" | "戻る"', '"キー":', '"認証-"', '"パスワードを表示"'])
      expect(marked.includes(untouched), untouched).toBe(true);
  });

  it("fails on an unmarked path that names no text, and on a template with escapes", () => {
    expect(() => markMessageModule(module, "texts.ts", { "texts.gone": "renamed" })).toThrow(/texts\.gone/);
    expect(() => markMessageModule("export const a = `改行の\\nある文です`;", "a.ts")).toThrow(/escapes/);
  });

  it("changes the site's messages by their markers alone", () => {
    for (const name of ["ja.ts", "modals.ts"]) {
      const source = readFileSync(`messages/${name}`, "utf8");
      const marked = markMessageModule(source, name, UNMARKED[name]);
      expect(withoutPhraseBreaks(marked)).toBe(source);
      expect(marked.split(PHRASE_BREAK).length).toBeGreaterThan(200);
    }
  });
});

describe("the transformed modules (this project runs the build's plugins)", () => {
  it("marks what a page shows and leaves what is sent on as it was", () => {
    expect(shown(screens.signIn.passkeyRequired)).toBe("この｜お手続きには、｜パスキーでの｜ログインが｜必要です。");
    expect(loginContextNames.app).toBe("アプリ");
    expect(screens.passkeys.defaultName.includes(PHRASE_BREAK)).toBe(false);
  });

  it("marks the brand data's support prose, never a name", () => {
    const aurora = brandData.brands.find(({ id }) => id === "gungnir-aurora");
    expect(aurora?.support.businessHour.includes(PHRASE_BREAK)).toBe(true);
    for (const brand of [...brandData.brands, brandData.defaultBrand])
      for (const name of [
        brand.displayName,
        brand.providerName,
        brand.partnerName ?? "",
        brand.transfer?.earlierServiceName ?? "",
      ])
        expect(name.includes(PHRASE_BREAK), name).toBe(false);
  });
});

describe("withPhraseBreaks (the brand data)", () => {
  const built = buildBrandData();
  const marked = withPhraseBreaks(built);

  it("changes the data by its markers alone, field order included", () => {
    expect(withoutPhraseBreaks(JSON.stringify(marked))).toBe(JSON.stringify(built));
    expect(JSON.stringify(marked).split(PHRASE_BREAK).length).toBeGreaterThan(50);
  });

  it("marks the support messages' text, leaves their markup sanitised and their links as they were", () => {
    const html =
      'お電話は<a href="tel:0570-031-552">0570-031-552</a>へおかけいただき、音声ガイダンスで<strong>「2」</strong>を選択してください。';
    const markedHtml = markSupportHtmlPhrases(sanitiseSupportHtml(html));
    expect(withoutPhraseBreaks(markedHtml)).toBe(sanitiseSupportHtml(html));
    expect(markedHtml).toContain('href="tel:0570-031-552">0570-031-552</a>');
    expect(markedHtml.includes(PHRASE_BREAK)).toBe(true);
    expect(sanitiseSupportHtml(markedHtml)).toBe(markedHtml);
  });
});
