import type { CDPSession, Page } from "playwright-core";

// What a screen loses when the user changes how it is shown (WCAG 2.2 AA): a narrow window (1.4.10 reflow), larger
// text (1.4.4), wider text spacing (1.4.12), a Windows contrast theme (forced colours: 1.4.11, 2.4.7) and small
// targets (2.5.8). Each audit is one function evaluated in the page as it stands, so a screen loaded once is checked
// in every mode; each answers the problems it found, one line each, and an empty list when there are none. A page
// function travels as its source, so each holds its own small helpers. docs/accessibility.md says how they are run
// and what they found.

/** WCAG 1.4.12's figures, as the usual text-spacing bookmarklet applies them. */
export const TEXT_SPACING_CSS =
  "*{line-height:1.5!important;letter-spacing:.12em!important;word-spacing:.16em!important}p{margin-bottom:2em!important}";

export interface LayoutOptions {
  /** The viewport's width the audit is meant for: another fails it, so that a resize that did not happen is seen. */
  width?: number;
  /**
   * Adds this stylesheet (TEXT_SPACING_CSS) to the page first, as its last one (a constructed sheet: the page's CSP
   * does not govern it), for good: the next page is without it. Fails if the body's letter spacing is not 0.12 em.
   */
  spacing?: string;
  /** Also fails text that lies over other text (after the spacing is changed). */
  overlap?: boolean;
  /** Remembers the size of every text, for a later `enlargedBy`. */
  remember?: boolean;
  /** Fails text whose size is less than this many times the size remembered. */
  enlargedBy?: number;
}

/**
 * Text the user cannot read or reach, as the page is laid out now:
 * - the page or a box in it scrolls sideways (two-dimensional scrolling);
 * - clipped text: text that runs out of a box whose overflow is `hidden` or `clip` (a `text-overflow: ellipsis` box is
 *   one), a placeholder or a read-only field's value wider than its field, text outside the viewport sideways or above
 *   the page's top, and text of a fixed box (a dialog) outside the viewport, or in a box that scrolls but does not
 *   fit in the viewport itself;
 * - with `overlap`, text over other text of the same layer (the page, or one dialog).
 * The page is audited as it is, then with each modal a control opens (a popover) opened in turn. Screen-reader-only
 * text (`.visually-hidden`) and the skip link until it has the focus are off the page on purpose.
 */
export function layoutLosses(options: LayoutOptions): string[] {
  const problems = new Set<string>();
  const root = document.documentElement;
  const viewportWidth = root.clientWidth;
  const viewportHeight = root.clientHeight;
  const name = (element: Element): string => {
    const classes = element.getAttribute("class")?.trim().split(/\s+/).join(".");
    const text = (element.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 20);
    return `${element.localName}${element.id ? `#${element.id}` : ""}${classes ? `.${classes}` : ""}${text ? ` "${text}"` : ""}`;
  };
  const offStage = (element: Element) =>
    element.closest(".visually-hidden") !== null || element.closest(".skip-link:not(:focus)") !== null;

  if (options.spacing) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(options.spacing);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    const body = getComputedStyle(document.body);
    // "normal" reads as NaN, which this fails too.
    if (!(Math.abs(Number.parseFloat(body.letterSpacing) - 0.12 * Number.parseFloat(body.fontSize)) <= 0.05))
      problems.add(`the text spacing did not apply: the body's letter spacing is ${body.letterSpacing}`);
  }
  if (options.width !== undefined && viewportWidth !== options.width)
    problems.add(`the viewport is ${viewportWidth} px wide, not ${options.width}`);
  if (root.scrollWidth > viewportWidth)
    problems.add(`the page scrolls sideways: ${root.scrollWidth} px wide in a ${viewportWidth} px viewport`);

  interface Box {
    clipX: boolean;
    clipY: boolean;
    scrollsY: boolean;
    fixed: boolean;
  }
  const boxes = new Map<Element, Box>();
  const boxOf = (element: Element): Box => {
    let box = boxes.get(element);
    if (!box) {
      const style = getComputedStyle(element);
      const clips = (overflow: string) => overflow === "hidden" || overflow === "clip";
      const inline = style.display === "inline";
      box = {
        clipX: !inline && clips(style.overflowX),
        clipY: !inline && clips(style.overflowY),
        scrollsY: style.overflowY === "auto" || style.overflowY === "scroll",
        fixed: style.position === "fixed",
      };
      if ((style.overflowX === "auto" || style.overflowX === "scroll") && element.scrollWidth > element.clientWidth)
        problems.add(`${name(element)} scrolls sideways: ${element.scrollWidth} px in ${element.clientWidth} px`);
      boxes.set(element, box);
    }
    return box;
  };
  const paddingBox = (element: Element) => {
    const rect = element.getBoundingClientRect();
    const left = rect.left + element.clientLeft;
    const top = rect.top + element.clientTop;
    return { left, top, right: left + element.clientWidth, bottom: top + element.clientHeight };
  };

  const memory = window as unknown as { __textSizes?: WeakMap<Node, number> };
  if (options.remember) memory.__textSizes = new WeakMap();
  let compared = 0;

  const lines: Array<{ rect: DOMRect; node: Node; layer: Element | null }> = [];
  const range = document.createRange();
  const auditText = (scope: Node) => {
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const owner = node.parentElement;
      if (!owner || !node.nodeValue?.trim() || offStage(owner)) continue;
      const style = getComputedStyle(owner);
      if (style.visibility !== "visible") continue;
      range.selectNodeContents(node);
      const rects = Array.from(range.getClientRects()).filter((rect) => rect.width > 0 && rect.height > 0);
      // Not rendered: in a closed dialog, a hidden element, a style or script.
      if (rects.length === 0) continue;

      const size = Number.parseFloat(style.fontSize);
      if (options.remember) memory.__textSizes?.set(node, size);
      const before = memory.__textSizes?.get(node);
      if (options.enlargedBy && before !== undefined) {
        compared += 1;
        if (size < before * options.enlargedBy - 0.5)
          problems.add(`text not enlarged: ${name(owner)} is ${size} px, was ${before} px`);
      }

      const layer = owner.closest("dialog");
      for (const rect of rects) {
        if (options.overlap) lines.push({ rect, node, layer });
        if (rect.left < -1 || rect.right > viewportWidth + 1) {
          problems.add(
            `text outside the viewport: ${name(owner)} at ${Math.round(rect.left)}–${Math.round(rect.right)} px`,
          );
          continue;
        }
        // What each clipping box on the way up must hold: the text, or once the text is in a box that scrolls, that
        // whole box (scrolled to its end, its last line sits at its bottom edge).
        let subject: { left: number; top: number; right: number; bottom: number } = rect;
        let element: Element | null = owner;
        for (; element && element !== root; element = element.parentElement) {
          const box = boxOf(element);
          if (box.clipX || box.clipY) {
            const edge = paddingBox(element);
            const outX = box.clipX && (subject.left < edge.left - 1 || subject.right > edge.right + 1);
            const outY = box.clipY && (subject.top < edge.top - 1 || subject.bottom > edge.bottom + 1);
            if (outX || outY) {
              problems.add(`clipped text: ${name(owner)} runs out of ${name(element)}`);
              break;
            }
          }
          if (box.scrollsY) subject = paddingBox(element);
          if (box.fixed) {
            if (subject.top < -1 || subject.bottom > viewportHeight + 1)
              problems.add(`text out of reach: ${name(owner)} lies outside the viewport in the fixed ${name(element)}`);
            break;
          }
        }
        // In the page itself (no fixed box): nothing scrolls above its top.
        if (element === root && subject.top + window.scrollY < -1)
          problems.add(`text above the page's top: ${name(owner)}`);
      }
    }
  };

  // A field's own text: its content box clips it, and an input does not wrap.
  const measure = document.createElement("canvas").getContext("2d");
  const auditFields = (scope: Document | HTMLElement) => {
    for (const input of Array.from(scope.querySelectorAll("input"))) {
      if (/^(hidden|checkbox|radio|submit|button|image|reset|file|range|color)$/.test(input.type)) continue;
      if (input.getClientRects().length === 0 || offStage(input)) continue;
      const style = getComputedStyle(input);
      const room = input.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
      // An editable field scrolls its value under the caret as the user edits it; a read-only one only shows it.
      if (input.value) {
        if (input.readOnly && input.scrollWidth > input.clientWidth)
          problems.add(`a read-only field's value is cut: ${name(input)} "${input.value}"`);
      } else if (input.placeholder && measure) {
        const placeholder = getComputedStyle(input, "::placeholder");
        measure.font = placeholder.font || style.font;
        measure.letterSpacing = placeholder.letterSpacing === "normal" ? "0px" : placeholder.letterSpacing;
        measure.wordSpacing = placeholder.wordSpacing === "normal" ? "0px" : placeholder.wordSpacing;
        const width = measure.measureText(input.placeholder).width;
        if (width > room + 1)
          problems.add(
            `a field's placeholder is cut: ${name(input)} "${input.placeholder}" needs ${Math.ceil(width)} px of ${Math.floor(room)}`,
          );
      }
    }
  };

  // The modals a control opens (popovers), each opened in turn and closed again; none while a modal dialog holds
  // the page (no control behind it can open one then).
  const popovers = (visit: (popover: HTMLElement) => void) => {
    if (document.querySelector("dialog:modal")) return;
    for (const popover of Array.from(document.querySelectorAll<HTMLElement>("[popover]"))) {
      if (popover.matches(":popover-open")) continue;
      popover.showPopover();
      try {
        visit(popover);
      } finally {
        popover.hidePopover();
      }
    }
  };
  auditText(document.body);
  auditFields(document);
  popovers((popover) => {
    auditText(popover);
    auditFields(popover);
  });
  if (options.enlargedBy && compared === 0) problems.add("no text was measured before it was enlarged");

  for (let i = 0; i < lines.length; i += 1) {
    const a = lines[i];
    if (!a) continue;
    for (let j = i + 1; j < lines.length; j += 1) {
      const b = lines[j];
      if (!b || b.node === a.node || b.layer !== a.layer) continue;
      const across = Math.min(a.rect.right, b.rect.right) - Math.max(a.rect.left, b.rect.left);
      const down = Math.min(a.rect.bottom, b.rect.bottom) - Math.max(a.rect.top, b.rect.top);
      if (across > 2 && down > 2) {
        const owner = (node: Node) => (node.parentElement ? name(node.parentElement) : "text");
        problems.add(`text over text: ${owner(a.node)} and ${owner(b.node)}`);
      }
    }
  }
  return [...problems];
}

/**
 * WCAG 2.5.8: every target (link, button, field, summary, an element with a button-like role or in the tab order)
 * shown is at least 24 × 24 CSS px, unless it is an inline link or button in a sentence, or a 24 px circle centred on
 * it meets no other target nor another small target's circle (the spacing exception). A target shown only with the
 * focus (the skip link) is measured with it.
 */
export function smallTargets(): string[] {
  const problems: string[] = [];
  const name = (element: Element): string => {
    const classes = element.getAttribute("class")?.trim().split(/\s+/).join(".");
    const text = (element.textContent || element.getAttribute("aria-label") || "").trim().slice(0, 20);
    return `${element.localName}${element.id ? `#${element.id}` : ""}${classes ? `.${classes}` : ""}${text ? ` "${text}"` : ""}`;
  };
  const selector = [
    "a[href]",
    "button",
    "input:not([type=hidden])",
    "select",
    "textarea",
    "summary",
    "[role=button]",
    "[role=link]",
    "[role=checkbox]",
    "[role=radio]",
    "[role=switch]",
    "[role=tab]",
    "[role=menuitem]",
    "[tabindex]:not([tabindex='-1'])",
  ].join(",");
  const small = (rect: DOMRect) => rect.width < 23.99 || rect.height < 23.99;
  const centre = (rect: DOMRect) => ({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });
  const inSentence = (element: Element) => {
    if (getComputedStyle(element).display !== "inline") return false;
    let block = element.parentElement;
    while (block && /^(inline|contents)$/.test(getComputedStyle(block).display)) block = block.parentElement;
    const all = (block?.textContent ?? "").replace(/\s+/g, "");
    return all.length > (element.textContent ?? "").replace(/\s+/g, "").length;
  };
  let found = 0;
  const audit = (scope: Document | HTMLElement) => {
    const focused = document.activeElement;
    const targets: Array<{ element: Element; rect: DOMRect }> = [];
    for (const element of Array.from(scope.querySelectorAll(selector))) {
      if (element.getClientRects().length === 0 || getComputedStyle(element).visibility !== "visible") continue;
      if (element.closest("[inert]")) continue;
      let rect = element.getBoundingClientRect();
      if (rect.right <= 0 || rect.bottom + window.scrollY <= 0) {
        (element as HTMLElement).focus({ preventScroll: true });
        rect = element.getBoundingClientRect();
      }
      targets.push({ element, rect });
    }
    if (focused instanceof HTMLElement && focused !== document.body) focused.focus({ preventScroll: true });
    else (document.activeElement as HTMLElement | null)?.blur();
    found += targets.length;
    for (const target of targets) {
      if (!small(target.rect) || inSentence(target.element)) continue;
      const c = centre(target.rect);
      const crowded = targets.find((other) => {
        if (other === target) return false;
        if (small(other.rect)) {
          const o = centre(other.rect);
          return Math.hypot(c.x - o.x, c.y - o.y) < 24;
        }
        const dx = Math.max(other.rect.left - c.x, 0, c.x - other.rect.right);
        const dy = Math.max(other.rect.top - c.y, 0, c.y - other.rect.bottom);
        return Math.hypot(dx, dy) < 12;
      });
      if (crowded)
        problems.push(
          `${name(target.element)} is ${Math.round(target.rect.width)} × ${Math.round(target.rect.height)} px and its 24 px circle meets ${name(crowded.element)}`,
        );
    }
  };
  // The modals a control opens (popovers), each opened in turn and closed again; none while a modal dialog holds
  // the page (no control behind it can open one then).
  const popovers = (visit: (popover: HTMLElement) => void) => {
    if (document.querySelector("dialog:modal")) return;
    for (const popover of Array.from(document.querySelectorAll<HTMLElement>("[popover]"))) {
      if (popover.matches(":popover-open")) continue;
      popover.showPopover();
      try {
        visit(popover);
      } finally {
        popover.hidePopover();
      }
    }
  };
  audit(document);
  popovers(audit);
  if (found === 0) problems.push("no target found");
  return problems;
}

/**
 * What a Windows contrast theme (forced colours, which replace the page's colours with the user's and drop its box
 * shadows) must leave visible: the focus ring of every control the keyboard reaches, shown on focus (an outline,
 * never a box shadow alone); the border of every field on all four sides; and every icon drawn in `currentColor` of
 * the colour it inherits (the theme's text colour), not in a fixed colour the theme does not change. Checked in the
 * page as forced colours show it; the focus ends where it started.
 */
export function forcedColourLosses(): string[] {
  if (!matchMedia("(forced-colors: active)").matches) return ["forced colours are not active"];
  const problems: string[] = [];
  const name = (element: Element): string => {
    const classes = element.getAttribute("class")?.trim().split(/\s+/).join(".");
    const text = (element.textContent || element.getAttribute("aria-label") || "").trim().slice(0, 20);
    return `${element.localName}${element.id ? `#${element.id}` : ""}${classes ? `.${classes}` : ""}${text ? ` "${text}"` : ""}`;
  };
  // Behind a modal dialog the page is inert: no focus reaches it.
  const modal = document.querySelector("dialog:modal");
  const shown = (element: Element) =>
    element.getClientRects().length > 0 &&
    getComputedStyle(element).visibility === "visible" &&
    element.closest("[inert], .visually-hidden") === null &&
    (!modal || modal.contains(element));
  const transparent = (colour: string) => /^rgba\(.*,\s*0\)$/.test(colour) || colour === "transparent";

  let focusable = 0;
  const audit = (scope: Document | HTMLElement) => {
    const focused = document.activeElement;
    const controls = Array.from(
      scope.querySelectorAll<HTMLElement>(
        "a[href],button:not(:disabled),input:not([type=hidden]):not(:disabled),select,textarea,summary,[tabindex]:not([tabindex='-1'])",
      ),
    ).filter(shown);
    focusable += controls.length;
    for (const control of controls) {
      control.focus({ preventScroll: true });
      if (document.activeElement !== control) {
        problems.push(`${name(control)} takes no focus`);
        continue;
      }
      if (!control.matches(":focus-visible")) problems.push(`${name(control)} is focused without :focus-visible`);
      const style = getComputedStyle(control);
      const ring =
        style.outlineStyle === "auto" ||
        (style.outlineStyle !== "none" &&
          Number.parseFloat(style.outlineWidth) >= 2 &&
          !transparent(style.outlineColor));
      if (!ring)
        problems.push(
          `${name(control)} shows no focus ring: outline ${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
        );
    }
    if (focused instanceof HTMLElement && focused !== document.body) focused.focus({ preventScroll: true });
    else (document.activeElement as HTMLElement | null)?.blur();

    for (const field of Array.from(scope.querySelectorAll("input, select, textarea")).filter(shown)) {
      if (/^(hidden|checkbox|radio|submit|button|image|reset)$/.test((field as HTMLInputElement).type)) continue;
      const style = getComputedStyle(field);
      for (const side of ["Top", "Right", "Bottom", "Left"] as const) {
        const line = style.getPropertyValue(`border-${side.toLowerCase()}-style`);
        const width = Number.parseFloat(style.getPropertyValue(`border-${side.toLowerCase()}-width`));
        const colour = style.getPropertyValue(`border-${side.toLowerCase()}-color`);
        if (line === "none" || line === "hidden" || width < 1 || transparent(colour))
          problems.push(`${name(field)} has no ${side.toLowerCase()} border: ${line} ${width} px ${colour}`);
      }
    }

    const shapes = "path,circle,rect,line,polyline,polygon,ellipse";
    for (const icon of Array.from(scope.querySelectorAll("svg")).filter(shown)) {
      // The QR code keeps its own black on white, as a scanner needs it (its paints are its own, not the theme's).
      if (icon.getAttribute("role") === "img") continue;
      const drawn: Element[] = Array.from(icon.querySelectorAll(shapes));
      for (const use of Array.from(icon.querySelectorAll("use"))) {
        const href = use.getAttribute("href") ?? "";
        const symbol = href.startsWith("#") ? document.getElementById(href.slice(1)) : null;
        if (!symbol) problems.push(`${name(icon)} uses ${href}, which is not in the page`);
        else drawn.push(...Array.from(symbol.querySelectorAll(shapes)));
      }
      if (drawn.length === 0) problems.push(`${name(icon)} draws nothing`);
      for (const shape of drawn) {
        const style = getComputedStyle(shape);
        for (const paint of [style.fill, style.stroke])
          if (paint !== "none" && paint !== style.color)
            problems.push(`${name(icon)} paints ${paint}, not its text colour ${style.color}`);
      }
      // An SVG keeps a colour of its own under forced colours (`forced-color-adjust: preserve-parent-color`): only one
      // it inherits is the theme's.
      const colour = getComputedStyle(icon).color;
      const theme = icon.parentElement ? getComputedStyle(icon.parentElement).color : colour;
      if (colour !== theme) problems.push(`${name(icon)} keeps its own colour ${colour}, not the theme's ${theme}`);
    }
  };
  // The modals a control opens (popovers), each opened in turn and closed again; none while a modal dialog holds
  // the page (no control behind it can open one then).
  const popovers = (visit: (popover: HTMLElement) => void) => {
    if (document.querySelector("dialog:modal")) return;
    for (const popover of Array.from(document.querySelectorAll<HTMLElement>("[popover]"))) {
      if (popover.matches(":popover-open")) continue;
      popover.showPopover();
      try {
        visit(popover);
      } finally {
        popover.hidePopover();
      }
    }
  };
  audit(document);
  popovers(audit);
  if (focusable === 0) problems.push("no control to focus");
  return [...new Set(problems)];
}

const sessions = new WeakMap<Page, Promise<CDPSession>>();

/**
 * Text at `factor` times its size, as the user's browser setting makes it: Chromium's default font size (16 px, 13
 * monospace), which every size of site.css follows (rem and em). It stays for the tab's next pages until set back.
 */
export async function setTextSize(page: Page, factor: number): Promise<void> {
  let session = sessions.get(page);
  if (!session) {
    session = page.context().newCDPSession(page);
    sessions.set(page, session);
  }
  await (await session).send("Page.setFontSizes", { fontSizes: { standard: 16 * factor, fixed: 13 * factor } });
}
