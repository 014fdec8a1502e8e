import PasswordField from "../islands/PasswordField";
import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { loginIdField, passwordField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { usePage } from "./layout/PageContext";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";
import { WhatIsIdLink, WhatIsIdModal } from "./layout/WhatIsIdModal";
import { fieldLabels, screens, type ModalKey } from "./messages";

export interface SignInProps {
  clientId?: string | undefined;
  username?: string | undefined;
  errors?: { username?: string; password?: string };
  modal?: ModalKey | undefined;
}

/** SPEC §2 SignIn: login ID and password; the links are hidden on a consent target's screen. */
export function SignIn({ clientId, username, errors = {}, modal }: SignInProps) {
  const { brand } = usePage();
  const text = screens.signIn;
  const links = brand.consentTarget ? null : (
    <>
      <a href="/signUp/checkEmail">{text.toSignUp}</a>
      <WhatIsIdLink />
      <a href={clientId ? `/resetPassword?client_id=${encodeURIComponent(clientId)}` : "/resetPassword"}>{text.forgotPassword}</a>
      <SupportLink />
      <ServiceTopLink />
    </>
  );
  return (
    <Card title={text.title} links={links} modals={<>{brand.consentTarget ? null : <WhatIsIdModal />}{modal ? <MessageModal message={modal} /> : null}</>}>
      <form method="post" action="/signIn">
        <TextField {...loginIdField({ value: username, error: errors.username })} />
        <PasswordField
          {...passwordField(
            { name: "password", label: fieldLabels.password, autoComplete: "current-password", rule: "password", checklist: false, serviceId: brand.id },
            { error: errors.password },
          )}
        />
        <SubmitButton label={text.submit} />
      </form>
      {brand.consentTarget ? <p className="card-links"><SupportLink /></p> : null}
    </Card>
  );
}
