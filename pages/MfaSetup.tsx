import type { ReactNode } from "react";
import { screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { usePage } from "./layout/PageContext";
import { PostButton } from "./layout/PostButton";
import { SupportLink } from "./layout/SupportModal";

/** SPEC §2 MFASetup: one button per second factor the brand allows; 'set up later' only where NONE is allowed. */
export function MfaSetup() {
  const { brand } = usePage();
  const text = screens.mfaSetup;
  return (
    <Card
      guarded
      title={text.title}
      links={
        <>
          {brand.mfaTypes.includes("NONE") ? (
            <PostButton action="/mfa/setup/skip" look="link">
              {text.later}
            </PostButton>
          ) : null}
          <SupportLink />
        </>
      }
    >
      <p className="lead">{text.lead}</p>
      <div className="choices">
        {brand.mfaTypes.includes("TOTP") ? (
          <a className="button" href="/mfa/setup/TOTP">
            {text.totp}
          </a>
        ) : null}
        {brand.mfaTypes.includes("SMS") ? (
          <a className="button" href="/mfa/setup/SMS">
            {text.sms}
          </a>
        ) : null}
      </div>
    </Card>
  );
}

/** The card of a factor's setup screen (TOTP, SMS): its own support message and a way back to the choice. */
export function MfaFactorCard({
  title,
  factor,
  modals,
  children,
}: {
  title: string;
  factor: "totp" | "sms";
  modals?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card
      guarded
      title={title}
      support={factor}
      links={
        <>
          <a href="/mfa/setup">{screens.mfaSetup.backToChoice}</a>
          <SupportLink />
        </>
      }
      modals={modals}
    >
      {children}
    </Card>
  );
}

/** SPEC §4: the factor is set; the page under the 'two-factor set' modal, whose link goes on with the flow. */
export function MfaSetupDone() {
  return (
    <Card title={screens.mfaSetup.title} guarded={false}>
      <p className="lead">{screens.mfaSetup.done}</p>
    </Card>
  );
}
