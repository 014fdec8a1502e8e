import { common, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { type PasskeyRegistrationStage, PasskeyRegistrationSteps } from "./layout/PasskeyCreateForm";
import { PostButton } from "./layout/PostButton";
import { SupportLink } from "./layout/SupportModal";

/** Where the enrolment's forms post (worker/routes/passkeyEnrolment.tsx). */
export const ENROLMENT_PATH = "/signIn/passkey/enrol";

/**
 * docs/passkeys.md "Enrolment": after a password sign-in, before the browser goes back to the app, a passkey is
 * offered: now (a code mailed to the account, then the browser's ceremony) or later (remembered for 14 days).
 */
export function PasskeyEnrolment({ stage }: { stage: PasskeyRegistrationStage }) {
  const text = screens.passkeyEnrolment;
  return (
    <Card
      guarded
      title={text.title}
      links={
        <>
          <PostButton action={`${ENROLMENT_PATH}/later`} look="link">
            {common.later}
          </PostButton>
          <SupportLink />
        </>
      }
    >
      <PasskeyRegistrationSteps stage={stage} base={ENROLMENT_PATH} start={`${ENROLMENT_PATH}/code`} />
    </Card>
  );
}
