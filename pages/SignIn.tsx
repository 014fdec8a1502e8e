import PasswordField from "../islands/PasswordField";
import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { loginIdField, passwordField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { Modal } from "./layout/Modal";
import { usePage } from "./layout/PageContext";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";
import { WhatIsIdLink, WhatIsIdModal } from "./layout/WhatIsIdModal";
import { fieldLabels, type ModalKey, type ModalText, screens } from "./messages";

export interface SignInProps {
  clientId?: string | undefined;
  username?: string | undefined;
  errors?: { username?: string; password?: string };
  modal?: ModalKey | undefined;
  /** A closable notice opened by the server with text built for this request (the SPEC §8 system-transfer case). */
  notice?: ModalText | undefined;
}

/** SPEC §2 SignIn: login ID and password; the links are hidden on a consent target's screen. */
export function SignIn({ clientId, username, errors = {}, modal, notice }: SignInProps) {
  const { brand } = usePage();
  const text = screens.signIn;
  const links = brand.consentTarget ? null : (
    <>
      <a href="/signUp/checkEmail">{text.toSignUp}</a>
      <WhatIsIdLink />
      <a href={clientId ? `/resetPassword?client_id=${encodeURIComponent(clientId)}` : "/resetPassword"}>
        {text.forgotPassword}
      </a>
      <SupportLink />
      <ServiceTopLink />
    </>
  );
  const modals = (
    <>
      {brand.consentTarget ? null : <WhatIsIdModal />}
      {modal ? <MessageModal message={modal} /> : null}
      {notice ? <Modal id="notice-modal" title={notice.title} body={notice.body} closable openOnLoad /> : null}
    </>
  );
  return (
    <Card title={text.title} links={links} modals={modals}>
      <form method="post" action="/signIn">
        {/* The tenant middleware reads the brand from the form, so the POST keeps this screen's service. */}
        {clientId ? <input type="hidden" name="client_id" value={clientId} /> : null}
        <TextField {...loginIdField({ value: username, error: errors.username })} />
        <PasswordField
          {...passwordField(
            {
              name: "password",
              label: fieldLabels.password,
              autoComplete: "current-password",
              rule: "password",
              checklist: false,
              serviceId: brand.id,
            },
            { error: errors.password },
          )}
        />
        <SubmitButton label={text.submit} />
      </form>
      {brand.consentTarget ? (
        <p className="card-links">
          <SupportLink />
        </p>
      ) : null}
    </Card>
  );
}
