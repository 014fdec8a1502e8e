// What the worker's build takes for `dijkstrajs` (vite.config.ts). `qrcode` requires that package only for its
// optimal segmentation of a string (Segments.fromString, a graph search); pages/layout/QrCode.tsx always hands
// create() its own segments, so the search never runs and its code need not be uploaded. Should a string ever
// reach create(), this fails the render loudly rather than quietly.
export function find_path(): never {
  throw new Error("qrcode: no segment search in this build (worker/dijkstrajsStub.ts)");
}
