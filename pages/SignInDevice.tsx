import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { serviceTopUrl, usePage } from "./layout/PageContext";
import { PostButton } from "./layout/PostButton";
import { SupportLink } from "./layout/SupportModal";

export interface SignInDeviceProps {
  /** The account's address as the upstream masked it (t***@example.com), where the code went. */
  destination?: string | undefined;
  /** Where 'start over' restarts the authorization flow; the service top when there is no auth request. */
  restartHref?: string | undefined;
}

/** docs/devices.md: a login from a new device, confirmed by the 6-digit code mailed to the account's address. */
export function SignInDevice({ destination, restartHref }: SignInDeviceProps) {
  const page = usePage();
  const text = screens.signInDevice;
  return (
    <Card
      guarded
      title={text.title}
      links={
        <>
          <PostButton action="/signIn/device/resend" look="link">
            {text.resend}
          </PostButton>
          <a href={restartHref ?? serviceTopUrl(page)}>{text.startOver}</a>
          <SupportLink />
        </>
      }
    >
      <p className="lead">{destination ? text.lead(destination) : text.leadNoDestination}</p>
      <p className="note">{text.validity}</p>
      <form method="post" action="/signIn/device">
        <Field preset="code" />
        <SubmitButton label={buttonLabels.logIn} />
      </form>
    </Card>
  );
}
