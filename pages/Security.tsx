import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { PostButton } from "./layout/PostButton";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";

/** Where the screen is and its forms post (worker/routes/security.tsx). */
export const SECURITY_PATH = "/security";

/** One sign-in as the screen shows it, every text ready (Japan time, the method's and the country's names). */
export interface SigninRow {
  at: string;
  method: string;
  device: string;
  place: string;
  /** The brand's display name, where the brand data knows its service id. */
  brand: string | undefined;
  /** A row that did not succeed, said by a text label (never colour alone); an operation's may be cancelled. */
  outcome: "refused" | "cancelled" | undefined;
  thisDevice: boolean;
}

export interface DeviceRow {
  id: string;
  device: string;
  place: string;
  lastUsed: string;
  signedIn: boolean;
  thisDevice: boolean;
}

export interface SecurityProps {
  signins: SigninRow[];
  /** How many sign-ins the upstream listed (the screen shows the newest only). */
  signinCount: number;
  devices: DeviceRow[];
  /** The own views linked from the screen, where the brand has them. */
  links: { passkeys: boolean; mfaSetup: boolean };
}

const text = screens.security;

function ThisDevice({ shown }: { shown: boolean }) {
  return shown ? <span className="tag">{text.thisDevice}</span> : null;
}

function Outcome({ outcome }: Pick<SigninRow, "outcome">) {
  if (outcome === "refused") return <span className="tag tag--refused">{text.refused}</span>;
  return outcome === "cancelled" ? <span className="tag">{text.cancelled}</span> : null;
}

/** docs/devices.md "On the site: /security": the account's devices (each signed out here) and its sign-ins. */
export function Security({ signins, signinCount, devices, links }: SecurityProps) {
  const others = devices.some((device) => !device.thisDevice && device.signedIn);
  const known = devices.some((device) => device.thisDevice);
  return (
    <Card
      title={text.title}
      links={
        <>
          {links.passkeys ? <a href="/passkeys">{screens.passkeys.title}</a> : null}
          <a href="/changePassword">{screens.changePassword.title}</a>
          {links.mfaSetup ? <a href="/mfa/setup">{screens.mfaSetup.title}</a> : null}
          <SupportLink />
          <ServiceTopLink />
        </>
      }
    >
      <h2 className="section-title">{text.devicesHeading}</h2>
      <p className="lead">{devices.length ? text.devicesLead : text.noDevices}</p>
      <ul className="rows">
        {devices.map((device) => (
          <li key={device.id} className="row">
            <p className="row-title">
              {device.device}
              <ThisDevice shown={device.thisDevice} />
            </p>
            <p className="note">
              {text.lastUsed(device.lastUsed)}
              <br />
              {text.place(device.place)}
              <br />
              {device.signedIn ? text.signedIn : text.signedOut}
            </p>
            {!device.thisDevice && device.signedIn ? (
              <PostButton action={`${SECURITY_PATH}/signout`} look="link" fields={{ id: device.id }}>
                {buttonLabels.signOutDevice}
                <span className="visually-hidden">{text.whichDevice(device.device)}</span>
              </PostButton>
            ) : null}
          </li>
        ))}
      </ul>
      {others ? (
        <PostButton action={`${SECURITY_PATH}/signout-others`}>{buttonLabels.signOutOtherDevices}</PostButton>
      ) : null}
      {known ? (
        <>
          <p className="note">{text.forgetNote}</p>
          <PostButton action={`${SECURITY_PATH}/forget`} look="link">
            {buttonLabels.forgetDevice}
          </PostButton>
        </>
      ) : null}
      <h2 className="section-title">{text.historyHeading}</h2>
      {signins.length ? null : <p className="lead">{text.noHistory}</p>}
      <ul className="rows">
        {signins.map((signin, index) => (
          // Two sign-ins may share a minute and every field: the position names a row.
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is rendered once, never reordered
          <li key={index} className="row">
            <p className="row-title">
              {signin.at}
              <Outcome outcome={signin.outcome} />
              <ThisDevice shown={signin.thisDevice} />
            </p>
            <p className="note">
              {text.method(signin.method)}
              <br />
              {text.device(signin.device)}
              <br />
              {text.place(signin.place)}
              {signin.brand ? (
                <>
                  <br />
                  {text.brand(signin.brand)}
                </>
              ) : null}
            </p>
          </li>
        ))}
      </ul>
      {signinCount > signins.length ? <p className="note">{text.historyShown(signins.length, signinCount)}</p> : null}
    </Card>
  );
}

/** This device forgotten: it is signed out, so the screen is the result alone (its modal leads to the service top). */
export function DeviceForgotten() {
  return (
    <Card title={text.title} links={<ServiceTopLink />}>
      {null}
    </Card>
  );
}
