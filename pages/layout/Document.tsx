import type { ReactNode } from "react";
import { IslandCollector } from "../../islands/host";
import { NativeBridge } from "../../islands/hosts";
import type { IslandName } from "../../islands/names";
import type { IslandsManifest } from "../../islands/vite-plugin";
import { common } from "../../messages/ja";
import { appUpdate, modals } from "../../messages/modals";
import { themeCss } from "../../themes/css";
import type { Brand } from "../../themes/schema";
import { IconSprite } from "./IconSprite";
import { PageContext, type PageEnvironment } from "./PageContext";
import siteCss from "./site.css?raw";

interface DocumentProps {
  page: PageEnvironment;
  nonce: string;
  manifest: IslandsManifest;
  islands: Set<IslandName>;
  children: ReactNode;
}

/** The bridge's update prompt, in words (islands get theirs from the server, so no message module ships to the browser). */
const updatePrompt = {
  title: appUpdate.title,
  body: appUpdate.body,
  actionLabel: appUpdate.actionLabel,
  later: common.later,
};

/** The head's style element content per brand (its theme tokens, then the site's CSS), built once per isolate. */
const stylesheets = new WeakMap<Brand, { __html: string }>();

function stylesheetOf(brand: Brand): { __html: string } {
  let stylesheet = stylesheets.get(brand);
  if (!stylesheet) {
    stylesheet = { __html: themeCss(brand) + siteCss };
    stylesheets.set(brand, stylesheet);
  }
  return stylesheet;
}

/** After the page's content, so the islands it rendered are known: the field icons' symbols where a field is. */
function FieldIconSprite({ islands }: { islands: Set<IslandName> }) {
  return islands.has("TextField") || islands.has("PasswordField") ? <IconSprite /> : null;
}

/** Renders after the page in the same pass, so it sees every island the page used; none used, no script. */
function IslandScripts({
  nonce,
  manifest,
  islands,
}: {
  nonce: string;
  manifest: IslandsManifest;
  islands: Set<IslandName>;
}) {
  if (islands.size === 0) return null;
  const preloads = [
    ...new Set([...manifest.entryImports, ...[...islands].flatMap((name) => manifest.islands[name] ?? [])]),
  ];
  return (
    <>
      {preloads.map((href) => (
        <link key={href} rel="modulepreload" href={href} nonce={nonce} />
      ))}
      <script type="module" src={manifest.entry} nonce={nonce} async />
    </>
  );
}

/** The HTML shell: theme as CSS custom properties in the head, so there is no unbranded flash (architecture §6). */
/**
 * A page that refused what was sent (a field's message, an error modal) says so first in its title, which a screen
 * reader reads as the page loads (the GOV.UK pattern, docs/accessibility.md).
 */
function refused({ form, modal }: PageEnvironment): boolean {
  return Object.keys(form?.errors ?? {}).length > 0 || (modal !== undefined && modals[modal.key].status >= 400);
}

export function Document({ page, nonce, manifest, islands, children }: DocumentProps) {
  const { brand } = page;
  const errorPrefix = refused(page) ? common.errorTitlePrefix : "";
  return (
    <html lang="ja">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
        <title>{`${errorPrefix}${common.titlePrefix}${brand.displayName}`}</title>
        <link rel="icon" href={brand.favicon} type="image/svg+xml" />
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own stylesheet and theme tokens validated as hex colours */}
        <style nonce={nonce} dangerouslySetInnerHTML={stylesheetOf(brand)} />
      </head>
      <body>
        <PageContext.Provider value={page}>
          <IslandCollector.Provider value={islands}>
            {children}
            {/* Inside the app only (docs/native-bridge.md); the brand's app release rule drives its version check. */}
            {page.nativeApp ? <NativeBridge app={brand.app ?? null} prompt={updatePrompt} /> : null}
          </IslandCollector.Provider>
        </PageContext.Provider>
        <FieldIconSprite islands={islands} />
        <IslandScripts nonce={nonce} manifest={manifest} islands={islands} />
      </body>
    </html>
  );
}
