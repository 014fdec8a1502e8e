// The symbol encoder of `qrcode` alone: its main entry also pulls the PNG and file renderers (Node fs, zlib,
// pngjs) into the worker bundle (ARCHITECTURE §9). Same signature as the package's `create`.
declare module "qrcode/lib/core/qrcode.js" {
  import type { QRCode, QRCodeOptions, QRCodeSegment } from "qrcode";
  export function create(text: string | QRCodeSegment[], options?: QRCodeOptions): QRCode;
}
