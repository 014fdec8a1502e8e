// jsdom ships no types and @types/jsdom is not installed; build.ts needs only a window to hand DOMPurify.
declare module "jsdom" {
  export class JSDOM {
    constructor(html?: string);
    readonly window: Window & typeof globalThis;
  }
}
