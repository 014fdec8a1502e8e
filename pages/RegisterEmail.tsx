import SubmitButton from "../islands/SubmitButton";
import TextField from "../islands/TextField";
import { codeField, emailField } from "./fields";
import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { ResultModal } from "./layout/ResultModal";
import { SupportLink } from "./layout/SupportModal";
import { type ModalKey, screens } from "./messages";

export interface RegisterEmailProps {
  email?: string | undefined;
  errors?: { email?: string; code?: string };
  modal?: ModalKey | undefined;
  /** The code was confirmed: the 'code confirmed' modal, leading to the next step of the flow. */
  confirmedNextHref?: string | undefined;
}

/** SPEC §2 RegisterEmail: send a code to an address, then confirm it; two forms, one per action. */
export function RegisterEmail({ email, errors = {}, modal, confirmedNextHref }: RegisterEmailProps) {
  const text = screens.registerEmail;
  return (
    <Card
      title={text.title}
      links={<SupportLink />}
      modals={
        <>
          {confirmedNextHref ? (
            <ResultModal
              id="register-email-confirmed"
              title={text.confirmedTitle}
              body={text.confirmedBody}
              href={confirmedNextHref}
              label={text.next}
            />
          ) : null}
          {modal ? <MessageModal message={modal} /> : null}
        </>
      }
    >
      <p className="lead">{text.lead}</p>
      <form method="post" action="/registerEmail/sendCode">
        <TextField {...emailField({ value: email, error: errors.email })} />
        <SubmitButton label={text.sendCode} />
      </form>
      <form method="post" action="/registerEmail">
        <TextField {...codeField({ error: errors.code })} />
        <SubmitButton label={text.submit} />
      </form>
      <ul className="notes">
        {text.notes.map((note) => (
          <li key={note}>{note}</li>
        ))}
      </ul>
    </Card>
  );
}
