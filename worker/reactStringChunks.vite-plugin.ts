import type { Plugin } from "vite";

// React's streaming server (the edge build the worker bundles, vite.config.ts) encodes every piece of a
// page to UTF-8 by itself, a Uint8Array for each tag start, attribute name, attribute value and text (200 to 450 a
// page), and copies each into a 4 KB buffer. This rewrites that build, at build time only, so that every piece stays
// a string and a flush encodes what it wrote once: the pages are byte for byte the same (`npm run profile -- --parts
// pages --bench-env --builds …` compares every screen, the TOTP secret streamed late included), with some 10 % less
// CPU per page in Node and on workerd (docs/performance.md). Each rewritten passage is matched exactly: a React
// whose source differs fails the build here, never ships half rewritten.

const FILE = "react-dom-server.edge.production.js";

const edits: ReadonlyArray<readonly [string, string]> = [
  // A piece of HTML is a string, precomputed ones too (they were encoded once at load).
  [
    `function stringToChunk(content) {
  return textEncoder.encode(content);
}
function stringToPrecomputedChunk(content) {
  return textEncoder.encode(content);
}
function byteLengthOfChunk(chunk) {
  return chunk.byteLength;
}`,
    `function stringToChunk(content) {
  return content;
}
function stringToPrecomputedChunk(content) {
  return content;
}
var nonAsciiHtml = /[^\\0-\\x7f]/;
function byteLengthOfChunk(chunk) {
  if ("string" !== typeof chunk) return chunk.byteLength;
  if (!nonAsciiHtml.test(chunk)) return chunk.length;
  for (var bytes = chunk.length, i = 0; i < chunk.length; i++) {
    var code = chunk.charCodeAt(i);
    128 > code || (2048 > code ? bytes++ : 55296 <= code && 56320 > code ? ((bytes += 2), i++) : (bytes += 2));
  }
  return bytes;
}`,
  ],
  // Written strings wait in one string; bytes (none in a page) or the end of a flush encode it.
  [
    `function writeChunk(destination, chunk) {
  if (0 === chunk.byteLength) {`,
    `var pendingHtml = "";
function writeChunk(destination, chunk) {
  if ("string" === typeof chunk) {
    pendingHtml += chunk;
    return;
  }
  0 < pendingHtml.length && (destination.enqueue(textEncoder.encode(pendingHtml)), (pendingHtml = ""));
  if (0 === chunk.byteLength) {`,
  ],
  [
    `function completeWriting(destination) {
  currentView &&`,
    `function completeWriting(destination) {
  0 < pendingHtml.length && (destination.enqueue(textEncoder.encode(pendingHtml)), (pendingHtml = ""));
  currentView &&`,
  ],
  [
    `function flushCompletedQueues(request, destination) {
  currentView = new Uint8Array(4096);
  writtenBytes = 0;`,
    `function flushCompletedQueues(request, destination) {
  currentView = new Uint8Array(4096);
  writtenBytes = 0;
  pendingHtml = "";`,
  ],
  // The size React keeps of each segment (it decides when a late part is outlined) counts UTF-8 bytes, as before.
  [`      segmentByteSize += segment[i].byteLength;`, `      segmentByteSize += byteLengthOfChunk(segment[i]);`],
];

export function reactStringChunks(): Plugin {
  return {
    name: "react-string-chunks",
    apply: "build",
    enforce: "pre",
    transform(code, id) {
      if (!id.endsWith(FILE)) return undefined;
      let rewritten = code;
      for (const [from, to] of edits) {
        if (rewritten.split(from).length !== 2)
          throw new Error(
            `reactStringChunks: ${FILE} no longer holds, once, the passage starting ${from.slice(0, 60)}`,
          );
        rewritten = rewritten.replace(from, to);
      }
      return { code: rewritten, map: null };
    },
  };
}
