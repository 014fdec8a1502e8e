import type { ReactNode } from "react";
import { SessionGuard } from "../../islands/hosts";
import { common } from "../../messages/ja";
import { otherTab } from "../../messages/modals";
import { ActiveModal } from "./CatalogueModal";
import { usePage } from "./PageContext";
import { SupportModal } from "./SupportModal";

interface CardProps {
  title: string;
  children: ReactNode;
  /** Links under the form (sign-up, forgot password, help, service top …). */
  links?: ReactNode;
  /** Modals the page can open; the support modal is always there, and the one the worker opened (ActiveModal). */
  modals?: ReactNode;
  /** Which of the brand's support messages the help modal shows (the second-factor pages have their own). */
  support?: "default" | "sms" | "totp";
  /**
   * product §4 session guard (another tab of the site disables this one). Set it on every screen with session
   * state, i.e. whose route loads a sealed journey cookie (sign-up, sign-in, MFA, forced password, consent, account
   * changes, MFA setup); leave it off on static result, link and error screens (the new-password page reads its
   * link's cookie, but its form posts the link it was made from). It ships the guard's script.
   */
  guarded?: boolean;
}

/** product §2: every screen is a card with the brand's logo and title on its themed background. */
export function Card({ title, children, links, modals, support = "default", guarded = false }: CardProps) {
  const { brand } = usePage();
  return (
    <>
      <a className="skip-link" href="#main">
        {common.skipToContent}
      </a>
      <div className="backdrop">
        <main id="main" className="card">
          <header className="card-header">
            <img
              className="logo"
              src={brand.logoImageUrl}
              alt={common.logoAlt(brand.displayName)}
              width={160}
              height={40}
            />
          </header>
          <h1 className="card-title">{title}</h1>
          {children}
          {links ? (
            <nav className="card-links" aria-label={title}>
              {links}
            </nav>
          ) : null}
        </main>
      </div>
      <SupportModal variant={support} />
      {modals}
      <ActiveModal />
      {guarded ? <SessionGuard modal={{ title: otherTab.title, body: otherTab.body }} /> : null}
    </>
  );
}
