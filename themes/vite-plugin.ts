import type { Plugin } from "vite";
import { buildBrandData, withPhraseBreaks } from "./build.ts";
import type { BrandData } from "./schema.ts";

const virtualId = "virtual:brand-data";
const resolvedVirtualId = `\0${virtualId}`;

/** Stands for a brand's own id in a shared value (JSON never holds it unescaped). */
const OWN_ID = "\u0000";

type Brand = BrandData["brands"][number];

/** The brand data with each brand's fields written only where they differ from the value most brands share. */
interface SharedBrandData {
  /** Every brand field, in the order the brands hold them. */
  fields: string[];
  /** A field's most common value as JSON, the brand's own id written OWN_ID (`/brands/<id>/logo.svg`). */
  shared: Record<string, string>;
  /** Each brand's id and the fields it does not share. */
  brands: Record<string, unknown>[];
  defaultBrand: Brand;
  clients: BrandData["clients"];
  associationFiles: BrandData["associationFiles"];
}

/**
 * The brands back from their shared form: the same fields, values and field order as built. Part of the module
 * the worker runs (its source is written out by brandDataModule), so it closes over nothing.
 */
function expandBrands(data: SharedBrandData): BrandData {
  const own = "\u0000";
  const brands = data.brands.map((written) => {
    const brand: Record<string, unknown> = {};
    const id = written.id as string;
    for (const field of data.fields) {
      if (field in written) brand[field] = written[field];
      else if (field in data.shared) brand[field] = JSON.parse((data.shared[field] as string).split(own).join(id));
    }
    return brand;
  });
  return {
    brands,
    defaultBrand: data.defaultBrand,
    clients: data.clients,
    associationFiles: data.associationFiles,
  } as BrandData;
}

function sharedForm(data: BrandData): SharedBrandData {
  // Every field in the brands' own order: a field only some hold goes after the one it follows in them.
  const fields: string[] = [];
  for (const brand of data.brands) {
    let previous = -1;
    for (const field of Object.keys(brand)) {
      const at = fields.indexOf(field);
      if (at < 0) fields.splice(previous + 1, 0, field);
      previous = at < 0 ? previous + 1 : at;
    }
  }
  const asShared = (brand: Brand, field: string) =>
    JSON.stringify(brand[field as keyof Brand])
      .split(brand.id)
      .join(OWN_ID);
  const shared: Record<string, string> = {};
  for (const field of fields.filter((name) => name !== "id")) {
    const counts = new Map<string, number>();
    for (const brand of data.brands)
      if (field in brand) counts.set(asShared(brand, field), (counts.get(asShared(brand, field)) ?? 0) + 1);
    const [value, count] = [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best), ["", 0]);
    if (count > 1) shared[field] = value;
  }
  const brands = data.brands.map((brand) =>
    Object.fromEntries(Object.entries(brand).filter(([field]) => shared[field] !== asShared(brand, field))),
  );
  const { defaultBrand, clients, associationFiles } = data;
  return { fields, shared, brands, defaultBrand, clients, associationFiles };
}

/**
 * The module's source. JSON.parse of a string literal parses faster than the same object as code. The brands share
 * most of their fields (the provider, the rules, the image paths but for their id…): each value most of them hold is
 * written once (some 0.6 KB less of the worker's gzipped upload, docs/performance.md). The shared form is used only
 * where it gives back the data exactly, field order included; otherwise the data is written whole.
 */
export function brandDataModule(data: BrandData): string {
  const compact = sharedForm(data);
  if (JSON.stringify(expandBrands(JSON.parse(JSON.stringify(compact)))) !== JSON.stringify(data))
    return `export default JSON.parse(${JSON.stringify(JSON.stringify(data))});\n`;
  return `export default (${expandBrands.toString()})(JSON.parse(${JSON.stringify(JSON.stringify(compact))}));\n`;
}

/**
 * Serves the validated, sanitised brand data as `virtual:brand-data`, so the worker ships JSON and
 * never DOMPurify or jsdom. Invalid data fails the build with every issue listed. The support contact's prose comes
 * with its phrase boundaries marked (`withPhraseBreaks`), as messages/ does (messages/vite-plugin.ts).
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
      moduleSource ??= brandDataModule(withPhraseBreaks(buildBrandData()));
      return moduleSource;
    },
  };
}
