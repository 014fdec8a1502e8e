import { PNG } from "pngjs";

/** The gallery's screenshots side by side, top-aligned, on white, 16 px apart. */
export function sideBySide(shots: Buffer[]): Buffer {
  const images = shots.map((shot) => PNG.sync.read(shot));
  const gap = 16;
  const sheet = new PNG({
    width: images.reduce((sum, image) => sum + image.width, 0) + gap * (images.length - 1),
    height: Math.max(...images.map((image) => image.height)),
  });
  sheet.data.fill(255);
  let x = 0;
  for (const image of images) {
    PNG.bitblt(image, sheet, 0, 0, image.width, image.height, x, 0);
    x += image.width + gap;
  }
  return PNG.sync.write(sheet);
}
