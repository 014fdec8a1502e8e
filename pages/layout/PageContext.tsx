import { createContext, useContext } from "react";
import type { FieldMessageKey } from "../../messages/ja";
import type { ModalKey } from "../../messages/modals";
import type { Brand } from "../../themes/schema";

export type DeployEnvironment = "dev" | "stg" | "prod";

/** The modal the server opens on this page (product §8), and where its `next` action leads. */
export interface ActiveModal {
  key: ModalKey;
  href?: string | undefined;
}

/** A rejected form: what the user typed (passwords never come back) and each field's message key. */
export interface FormState {
  values: Record<string, string>;
  errors: Partial<Record<string, FieldMessageKey>>;
}

/** What every screen may read about the request: the brand, where "service top" points, and the outcome shown. */
export interface PageEnvironment {
  brand: Brand;
  environment: DeployEnvironment;
  /** The provider's mail sender domain, named in the "mail did not arrive" help. */
  mailSenderDomain: string;
  /** The earlier service of the product §8 system-transfer notices, from the brand data. */
  earlierServiceName: string;
  /**
   * The request comes from a brand's native app (its webview's User-Agent carries `KazahanaApp/<version>`,
   * docs/native-bridge.md): the shell then adds the native bridge island. Absent means a plain browser.
   */
  nativeApp?: boolean;
  modal?: ActiveModal | undefined;
  form?: FormState | undefined;
}

export const PageContext = createContext<PageEnvironment | null>(null);

export function usePage(): PageEnvironment {
  const page = useContext(PageContext);
  if (!page) throw new Error("a page rendered outside the document shell");
  return page;
}

export function serviceTopUrl({ brand, environment }: Pick<PageEnvironment, "brand" | "environment">): string {
  return brand.fallBackUrls[environment];
}
