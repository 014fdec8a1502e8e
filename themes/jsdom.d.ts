// jsdom ships no types and @types/jsdom is not installed; build.ts needs a window to hand DOMPurify, check.ts parses
// support markup and SVG assets with its DOMParser.
declare module "jsdom" {
  export class JSDOM {
    constructor(html?: string);
    readonly window: Window & typeof globalThis;
  }
}
