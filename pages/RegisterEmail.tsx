import SubmitButton from "../islands/SubmitButton";
import { screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { SupportLink } from "./layout/SupportModal";

/** SPEC §2 RegisterEmail: send a code to an address, then confirm it; two forms, one per action. */
export function RegisterEmail() {
  const text = screens.registerEmail;
  return (
    <Card guarded title={text.title} links={<SupportLink />}>
      <p className="lead">{text.lead}</p>
      <form method="post" action="/registerEmail/sendCode">
        <Field preset="email" />
        <SubmitButton label="sendCode" />
      </form>
      <form method="post" action="/registerEmail">
        <Field preset="code" />
        <SubmitButton label="next" />
      </form>
      <ul className="notes">
        {text.notes.map((note) => (
          <li key={note}>{note}</li>
        ))}
      </ul>
    </Card>
  );
}
