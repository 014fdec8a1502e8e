// The parts of pngjs the browser tests use (the package ships no types): a PNG decoded to RGBA, a part of one copied
// into a new image (webkit.ts cuts an element out of a screenshot), and an image encoded again.
declare module "pngjs" {
  interface Image {
    width: number;
    height: number;
    data: Buffer;
  }
  export const PNG: {
    new (size: { width: number; height: number }): Image;
    sync: { read(buffer: Buffer): Image; write(image: Image): Buffer };
    bitblt(from: Image, to: Image, x: number, y: number, width: number, height: number, toX: number, toY: number): void;
  };
}
