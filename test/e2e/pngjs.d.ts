// The one part of pngjs the QR test reads (the package ships no types): a PNG decoded to RGBA.
declare module "pngjs" {
  export const PNG: { sync: { read(buffer: Buffer): { width: number; height: number; data: Buffer } } };
}
