import { PasskeySignIn, SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { CatalogueModal, CatalogueModalOpener } from "./layout/CatalogueModal";
import { Field } from "./layout/Field";
import { usePage } from "./layout/PageContext";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";

export interface SignInProps {
  clientId?: string | undefined;
  /** The login ID to fill in (the app's autoFillUserName, or the one typed before). */
  username?: string | undefined;
  /** docs/passkeys.md: passkeys are on for this brand here; the island offers them where the browser can. */
  passkeys?: boolean | undefined;
  /** Only a passkey may complete this login (the brand requires it, or the app asked for `phr`): no password form. */
  passkeyOnly?: boolean | undefined;
}

/** product §2 SignIn: login ID and password; the links are hidden on a consent target's screen. */
export function SignIn({ clientId, username, passkeys, passkeyOnly }: SignInProps) {
  const { brand } = usePage();
  const text = screens.signIn;
  // The step-up page is for a customer already signed in to the app: how to go on with a passkey, whom to ask, and the
  // way back; a sign-up, a password reset or what a login ID is would lead them astray.
  const stepUpLinks = (
    <>
      <SupportLink />
      <ServiceTopLink />
    </>
  );
  const links = brand.consentTarget ? null : passkeyOnly ? (
    stepUpLinks
  ) : (
    <>
      <a href="/signUp/checkEmail">{text.toSignUp}</a>
      <CatalogueModalOpener name="whatIsId" />
      <a href={clientId ? `/resetPassword?client_id=${encodeURIComponent(clientId)}` : "/resetPassword"}>
        {text.forgotPassword}
      </a>
      <SupportLink />
      <ServiceTopLink />
    </>
  );
  return (
    <Card
      guarded
      title={text.title}
      links={links}
      modals={brand.consentTarget || passkeyOnly ? null : <CatalogueModal name="whatIsId" />}
    >
      {passkeyOnly ? (
        <>
          <p className="lead">{text.passkeyRequired}</p>
          <p className="note">{text.noPasskey}</p>
        </>
      ) : (
        <form method="post" action="/signIn" id="sign-in-form">
          {/* Brand resolution reads the client_id from the form, so the POST keeps this screen's brand. */}
          {clientId ? <input type="hidden" name="client_id" value={clientId} /> : null}
          <Field preset="loginId" value={username} />
          <Field preset="password" />
          <SubmitButton label={buttonLabels.logIn} />
        </form>
      )}
      {passkeys || passkeyOnly ? (
        // The island posts the signed credential here; without script, nothing of it shows.
        <form method="post" action="/signIn/passkey" className="passkey-form">
          {clientId ? <input type="hidden" name="client_id" value={clientId} /> : null}
          <input type="hidden" name="credential" />
          <PasskeySignIn label={buttonLabels.passkeyLogIn} usernameId="field-username" passwordFormId="sign-in-form" />
        </form>
      ) : null}
      {brand.consentTarget ? (
        <p className="card-links">
          <SupportLink />
        </p>
      ) : null}
    </Card>
  );
}
