import { createContext, useContext } from "react";
import type { Brand } from "../../themes/schema";

export type DeployEnvironment = "dev" | "stg" | "prod";

/** What every screen may read about the request: the brand and where "service top" points here. */
export interface PageEnvironment {
  brand: Brand;
  environment: DeployEnvironment;
  /** The provider's mail sender domain, named in the "mail did not arrive" help. */
  mailSenderDomain: string;
  /**
   * The request comes from a brand's native app (its webview's User-Agent carries `KazahanaApp/<version>`,
   * docs/native-bridge.md): the shell then adds the native bridge island. Absent means a plain browser.
   */
  nativeApp?: boolean;
}

export const PageContext = createContext<PageEnvironment | null>(null);

export function usePage(): PageEnvironment {
  const page = useContext(PageContext);
  if (!page) throw new Error("a page rendered outside the document shell");
  return page;
}

export function serviceTopUrl({ brand, environment }: PageEnvironment): string {
  return brand.fallBackUrls[environment];
}
