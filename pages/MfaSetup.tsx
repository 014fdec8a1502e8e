import type { ReactNode } from "react";
import { PasskeyOffer } from "../islands/hosts";
import { screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { usePage } from "./layout/PageContext";
import { type PasskeyRegistrationStage, PasskeyRegistrationSteps } from "./layout/PasskeyCreateForm";
import { PostButton } from "./layout/PostButton";
import { SupportLink } from "./layout/SupportModal";

/** Where a passkey made on the second-factor step is registered (worker/routes/mfaSetupPasskey.tsx). */
export const PASSKEY_SETUP_PATH = "/mfa/setup/passkey";

/**
 * product §2 MFASetup: one button per second factor the brand allows; 'set up later' only where NONE is allowed.
 * `passkey`: passkeys are on for the brand here, so a passkey is offered first wherever the browser can make one
 * (docs/passkeys.md, "Passkey first"); the island shows it only then.
 */
export function MfaSetup({ passkey = false }: { passkey?: boolean }) {
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
        {passkey ? (
          <PasskeyOffer label={text.passkey} note={text.passkeyWhy} action={`${PASSKEY_SETUP_PATH}/start`} />
        ) : null}
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

/** The card of a factor's setup screen (TOTP, SMS, passkey): its support message and a way back to the choice. */
export function MfaFactorCard({
  title,
  factor,
  modals,
  children,
}: {
  title: string;
  factor: "totp" | "sms" | "passkey";
  modals?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card
      guarded
      title={title}
      support={factor === "passkey" ? "default" : factor}
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

/** product §4: the factor is set; the page under the 'two-factor set' modal, whose link goes on with the flow. */
export function MfaSetupDone() {
  return (
    <Card title={screens.mfaSetup.title} guarded={false}>
      <p className="lead">{screens.mfaSetup.done}</p>
    </Card>
  );
}

/**
 * docs/passkeys.md "Passkey first": a passkey as the second factor. `start` posts to begin (a fresh sign-up's ticket
 * opens the ceremony at once; otherwise a code is mailed to the account first), then the steps the enrolment shares.
 */
export function MfaSetupPasskey({ stage }: { stage: PasskeyRegistrationStage }) {
  return (
    <MfaFactorCard title={screens.passkeyEnrolment.title} factor="passkey">
      <PasskeyRegistrationSteps stage={stage} base={PASSKEY_SETUP_PATH} start={`${PASSKEY_SETUP_PATH}/start`} />
    </MfaFactorCard>
  );
}
