import { IslandCollector } from "../islands/host";
import { earlierServiceName } from "../themes/brands";
import { themeCss } from "../themes/css";
import type { Brand } from "../themes/schema";
import { IconSprite } from "./layout/IconSprite";
import { PageContext, usePage } from "./layout/PageContext";
import { SignIn } from "./SignIn";

export interface GalleryProps {
  /** Every brand of the data, in data order; each gets one card. */
  brands: readonly { brand: Brand; clientId?: string | undefined }[];
  /** The response's CSP nonce, for the style element that scopes each brand's theme to its card. */
  nonce: string;
}

const GALLERY_CSS =
  ".gallery-title{margin:0;padding:16px 16px 0;font-size:1.25rem}" +
  ".gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:16px;padding:16px;align-items:start}" +
  ".gallery-item{border:1px solid #d0d7de;border-radius:8px;overflow:hidden;background:var(--brand-bg-secondary)}" +
  ".gallery-label{margin:0;padding:6px 12px;font-size:.875rem;font-weight:600;background:#fff;border-bottom:1px solid #d0d7de}" +
  ".gallery-label code{font-weight:400;color:#57606a;margin-right:8px}" +
  ".gallery-item .backdrop{min-height:0;padding:16px 12px}";

/**
 * Dev only (`/__gallery`, worker/routes.tsx under `__DEV_ROUTES__`): every brand's real sign-in card side by side,
 * each with its own theme, the custom properties scoped to the card's container. The islands' hosts render as
 * HTML but are not collected, so the page ships no script.
 */
export function Gallery({ brands, nonce }: GalleryProps) {
  const page = usePage();
  const themes = brands.map(({ brand }) => themeCss(brand, `[data-brand="${brand.id}"]`)).join("");
  return (
    <>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own rules; brand ids are kebab-case, colours hex (themes/schema.ts) */}
      <style nonce={nonce} dangerouslySetInnerHTML={{ __html: themes + GALLERY_CSS }} />
      <IconSprite />
      <h1 className="gallery-title">{`Brand gallery: ${brands.length} brands`}</h1>
      <div className="gallery">
        {brands.map(({ brand, clientId }) => (
          <section key={brand.id} className="gallery-item" data-brand={brand.id} aria-label={brand.id}>
            <h2 className="gallery-label">
              <code>{brand.id}</code>
              {brand.displayName}
            </h2>
            <PageContext.Provider
              value={{
                ...page,
                brand,
                earlierServiceName: earlierServiceName(brand),
                nativeApp: false,
                modal: undefined,
                form: undefined,
              }}
            >
              <IslandCollector.Provider value={null}>
                <SignIn clientId={clientId} />
              </IslandCollector.Provider>
            </PageContext.Provider>
          </section>
        ))}
      </div>
    </>
  );
}
