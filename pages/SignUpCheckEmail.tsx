import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { emailField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";
import { WhatIsIdLink, WhatIsIdModal } from "./layout/WhatIsIdModal";
import { type ModalKey, screens } from "./messages";

export interface SignUpCheckEmailProps {
  email?: string | undefined;
  errors?: { email?: string };
  modal?: ModalKey | undefined;
}

/** SPEC §2 SignUpCheckEmail: the e-mail that becomes the login ID. */
export function SignUpCheckEmail({ email, errors = {}, modal }: SignUpCheckEmailProps) {
  const text = screens.signUpCheckEmail;
  return (
    <Card
      title={text.title}
      links={
        <>
          <a href="/signIn">{text.toSignIn}</a>
          <WhatIsIdLink />
          <SupportLink />
          <ServiceTopLink />
        </>
      }
      modals={
        <>
          <WhatIsIdModal />
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action="/signUp/checkEmail">
        <TextField {...emailField({ value: email, error: errors.email })} />
        <SubmitButton label={text.submit} />
      </form>
    </Card>
  );
}
