// The symbol encoder of `qrcode` alone: its main entry also pulls the PNG and file renderers (Node fs, zlib,
// pngjs) into the worker bundle (architecture §9). Same signature as the package's `create`.
declare module "qrcode/lib/core/qrcode.js" {
  import type { QRCode, QRCodeOptions, QRCodeSegment } from "qrcode";
  export function create(text: string | QRCodeSegment[], options?: QRCodeOptions): QRCode;
}

// The (15, 5) BCH-coded format information of a level and mask, as the symbol's 15 format bits (bit 0 first).
declare module "qrcode/lib/core/format-info.js" {
  export function getEncodedBits(errorCorrectionLevel: { bit: number }, mask: number): number;
}
