import { chai } from "vitest";
import { withoutPhraseBreaks } from "./phraseBreaks";

// The pages' Japanese is marked at its phrase boundaries (messages/vite-plugin.ts). In every project that reads
// pages, `expect(text).toContain(words)` (and `.not`) on two strings compares them as they read, without the markers:
// the words of a test, written by hand or imported from messages/, are found in a marked page. Other values are
// compared as before; a test about the markers themselves reads the string (`includes`).

type Method = (this: Chai.AssertionStatic, expected: unknown) => void;

// A project whose files share one module graph (the workerd pool's isolate: false) runs its setup once per file.
const done = Symbol.for("toContain compares text as it reads");
const prototype = chai.Assertion.prototype as unknown as Record<symbol, boolean>;
if (!prototype[done]) {
  prototype[done] = true;
  chai.util.overwriteMethod(
    chai.Assertion.prototype,
    "toContain",
    (original: Method) =>
      function (this: Chai.AssertionStatic, expected: unknown) {
        const received: unknown = chai.util.flag(this, "object");
        if (typeof received !== "string" || typeof expected !== "string") return original.call(this, expected);
        chai.util.flag(this, "object", withoutPhraseBreaks(received));
        return original.call(this, withoutPhraseBreaks(expected));
      },
  );
}
