import { describe, expect, it } from "vitest";
import { emulatorClient } from "../support/emulatorClient";
import { type ScreenCase, screenCases, stepUpSignInCase } from "../support/screens";
import { screenCookies } from "../support/screenThemes";
import { GUNGNIR } from "../support/vocabulary";
import { withLocalCertificate } from "./browser";
import type { Site } from "./engineJourneys";
import { type EnginePage, until } from "./enginePage";

// Japanese that breaks where it reads (docs/accessibility.md, "Japanese line breaks"), measured in each engine: on
// every screen, at two phone widths, where each line of the page's Japanese text ends. A line must not start with
// what Japanese typesetting keeps off a line's start (the prolonged sound mark, a small kana, closing punctuation),
// and an everyday word must not be split across two lines. One theme is enough: a brand changes colours and images,
// never the words' sizes, so the lines break the same in every theme.

/** The widths measured, in CSS px: the narrowest phone (and WCAG's reflow width), and a common one. */
export const LINE_WIDTHS = [320, 375] as const;
/** The viewport's height while measuring: any, since a line's breaks depend on the width alone. */
const HEIGHT = 800;
/** What no line may start with: the prolonged sound mark, small kana, closing punctuation. */
export const NO_LINE_START = "ー、。）」』】！？：ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ";
/** Everyday words no line break may split. */
export const EVERYDAY_WORDS = [
  "ログイン",
  "ログアウト",
  "パスキー",
  "パスワード",
  "メールアドレス",
  "認証コード",
  "確認コード",
  "新規登録",
  "アカウント",
  "電話番号",
];

/**
 * The page script that measures every rendered text node of `root` (the document, or an open modal), one character
 * at a time (Range.getClientRects), grouped by the block it flows in, and answers the problems found. A character is
 * on a new line when it sits lower than the one before it in its block by more than half its height. Zero-width
 * spaces and white space are not characters here; visually hidden text (a screen reader's alone) is not drawn.
 */
const MEASURE = `
  const noStart = new Set(${JSON.stringify([...NO_LINE_START])});
  const words = ${JSON.stringify(EVERYDAY_WORDS)};
  const japanese = /[\\u3040-\\u30ff\\u4e00-\\u9fff]/;
  const blockOf = (element) => {
    while (element.parentElement && ["inline", "contents"].includes(getComputedStyle(element).display))
      element = element.parentElement;
    return element;
  };
  const range = document.createRange();
  const measure = (root, where) => {
    const blocks = new Map();
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest(".visually-hidden, script, style, template, noscript")) continue;
      const block = blockOf(parent);
      const characters = blocks.get(block) ?? [];
      blocks.set(block, characters);
      const text = node.data;
      for (let at = 0; at < text.length; at++) {
        const wide = text.codePointAt(at) > 0xffff;
        const character = text.slice(at, at + (wide ? 2 : 1));
        if (character === "\\u200b" || /\\s/.test(character)) continue;
        range.setStart(node, at);
        range.setEnd(node, at + character.length);
        const box = range.getClientRects()[0];
        if (wide) at++;
        if (!box || box.height === 0) continue;
        characters.push({ character, top: box.top, height: box.height });
      }
    }
    const problems = [];
    let lineCount = 0;
    for (const characters of blocks.values()) {
      const text = characters.map(({ character }) => character).join("");
      if (!japanese.test(text)) continue;
      const lineOf = [];
      let line = 0;
      characters.forEach(({ top, height }, index) => {
        const before = characters[index - 1];
        if (before && top > before.top + Math.min(height, before.height) / 2) line++;
        lineOf.push(line);
      });
      lineCount += line + 1;
      const shown = (index) =>
        characters.map(({ character }, at) => (at > 0 && lineOf[at] !== lineOf[at - 1] ? "｜" : "") + character)
          .join("").slice(Math.max(0, index - 12), index + 16);
      characters.forEach(({ character }, index) => {
        if (index > 0 && lineOf[index] !== lineOf[index - 1] && noStart.has(character))
          problems.push(where + ": a line starts with 「" + character + "」: " + shown(index));
      });
      for (const word of words)
        for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1))
          if (lineOf[at] !== lineOf[at + word.length - 1])
            problems.push(where + ": 「" + word + "」 is split: " + shown(at));
    }
    return { problems, lineCount };
  };
  const found = measure(document.body, "the page");
  const problems = [...found.problems];
  let lineCount = found.lineCount;
  for (const dialog of document.querySelectorAll("dialog[popover]")) {
    dialog.showPopover();
    const inDialog = measure(dialog, "#" + dialog.id);
    dialog.hidePopover();
    problems.push(...inDialog.problems);
    lineCount += inDialog.lineCount;
  }
  return { problems, lineCount };
`;

/**
 * A page script that measures the screen at `width` once it is ready, in one call: its text is there (as it reads,
 * without markers), every island has hydrated, the window's new size `outer` has reached the page (WebKitGTK's comes
 * a moment after its driver answers) and the page lays out at `width`. Until then it answers what it waits for, or
 * the width the page lays out at.
 */
const measureWhenReady = (text: string, outer: number, width: number) => `
  const shown = document.body.textContent.split("\u200b").join("").includes(${JSON.stringify(text)});
  if (!shown || ![...document.querySelectorAll("[data-island]")].every((host) => host.hasAttribute("data-hydrated")))
    return { waiting: "shown, hydrated" };
  if (innerWidth !== ${outer}) return { waiting: "at ${outer} px" };
  const clientWidth = document.documentElement.clientWidth;
  if (clientWidth !== ${width}) return { clientWidth };
  ${MEASURE}`;

type Measured = { problems: string[]; lineCount: number };
type Answer = Measured | { waiting: string } | { clientWidth: number };
/** The tab's viewport width last asked for, and the one that gave each measured width its layout. */
type Viewport = { outer?: number; outerFor: Map<number, number> };

/** The screens measured: every screen of one brand, and the step-up sign-in (only a passkey may sign in). */
const screensOf = (): ScreenCase[] => [...screenCases(GUNGNIR), stepUpSignInCase(GUNGNIR)];

/** A screen's sealed state as cookies, with the brand its user came from. */
async function cookiesOf(screen: ScreenCase): Promise<{ name: string; value: string }[]> {
  return (await screenCookies(GUNGNIR, screen)).map((pair) => {
    const at = pair.indexOf("=");
    return { name: pair.slice(0, at), value: pair.slice(at + 1) };
  });
}

/**
 * Measures the screen the tab shows where the page lays out at `width` CSS px (`document.documentElement.clientWidth`):
 * the tab's viewport is `width` and more by whatever a classic scrollbar takes (WebKitGTK draws one; a phone overlays
 * its scrollbars). `viewport` holds the width last asked for and, for each width measured, the viewport that gave it
 * last: a screen already at the width is measured without a resize, and each page script both checks the width and
 * measures (`measureWhenReady`).
 */
async function measuredAt(page: EnginePage, screen: ScreenCase, width: number, viewport: Viewport): Promise<Measured> {
  if (!page.resize) throw new Error(`${page.engine}'s tab cannot resize its viewport`);
  let outer = viewport.outerFor.get(width) ?? width;
  let answer: Answer | undefined;
  for (let tries = 0; tries < 3; tries++) {
    if (viewport.outer !== outer) {
      await page.resize(outer, HEIGHT);
      viewport.outer = outer;
    }
    await until(async () => {
      answer = await page.exec<Answer>(measureWhenReady(screen.expectText, outer, width));
      return !("waiting" in answer);
    }, `${screen.name} shown, hydrated, in ${page.engine} at ${outer} px`);
    if (answer && "problems" in answer) {
      viewport.outerFor.set(width, outer);
      return answer;
    }
    if (answer && "clientWidth" in answer) outer += width - answer.clientWidth;
  }
  throw new Error(
    `${page.engine} lays out at ${answer && "clientWidth" in answer ? answer.clientWidth : "?"} CSS px, not ${width}`,
  );
}

/**
 * The line-break check in one engine: one test, every screen of one brand at each width, with script on (the page
 * as most users get it, islands hydrated). One tab goes from screen to screen, forgetting the site in between, so
 * the scripts load once; each screen is loaded once and measured at both widths by resizing the viewport (a resize
 * relays out the page, a load costs far more), the widths alternating from screen to screen: one resize a screen.
 * Each measure is one page script, and the modals a control opens are opened and measured by it too.
 */
export function lineBreaksIn(engine: string, openPage: () => Promise<EnginePage>, site: () => Site): void {
  describe(`${engine}: Japanese line breaks`, () => {
    it(`no line starts with ー, a small kana or closing punctuation, and no everyday word is split, at ${LINE_WIDTHS.join(" and ")} CSS px`, async () => {
      const { url, https } = site();
      const fromNode = <T>(call: () => Promise<T>) => (https ? withLocalCertificate(call) : call());
      const upstream = emulatorClient((path, init) =>
        fromNode(() => fetch(`${url}${path}`, { ...init, redirect: "manual" })),
      );
      const problems: string[] = [];
      let lines = 0;
      let widths: number[] = [...LINE_WIDTHS];
      // One tab for every screen, which forgets the site between them: a new tab would load every script again.
      const page = await openPage();
      const viewport: Viewport = { outerFor: new Map() };
      try {
        for (const screen of screensOf()) {
          await page.forgetSite();
          await page.setCookies(url, await cookiesOf(screen));
          for (const fault of screen.upstream ?? []) await upstream.fault(fault);
          await page.go(`${url}${screen.path}`);
          for (const width of widths) {
            const measured = await measuredAt(page, screen, width, viewport);
            problems.push(...measured.problems.map((problem) => `${screen.name} at ${width} px, ${problem}`));
            lines += measured.lineCount;
          }
          // The next screen starts at the width this one ended with: one resize a screen.
          widths = widths.reverse();
        }
      } finally {
        // A kept window (WebKit's) gets back the phone viewport the other tests use.
        await page.resize?.(414, 896).catch(() => undefined);
        await page.close();
      }
      expect(problems).toEqual([]);
      // The measure saw the pages' text: some thousand lines over every screen and both widths.
      expect(lines).toBeGreaterThan(500);
    }, 240_000);
  });
}
