import type { Plugin } from "vite";
import { buildBrandData } from "./build";

const virtualId = "virtual:brand-data";
const resolvedVirtualId = `\0${virtualId}`;

/**
 * Serves the validated, sanitised brand data as `virtual:brand-data`, so the worker ships JSON and
 * never DOMPurify or jsdom. Invalid data fails the build with every issue listed.
 *
 * @example plugins: [brandDataPlugin(), cloudflare()]
 */
export function brandDataPlugin(): Plugin {
  let moduleSource: string | undefined;
  return {
    name: "brand-data",
    resolveId(id) {
      return id === virtualId ? resolvedVirtualId : undefined;
    },
    load(id) {
      if (id !== resolvedVirtualId) return undefined;
      // JSON.parse of a string literal parses faster than the same object as code.
      moduleSource ??= `export default JSON.parse(${JSON.stringify(JSON.stringify(buildBrandData()))});\n`;
      return moduleSource;
    },
  };
}
