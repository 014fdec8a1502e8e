import { SubmitButton } from "../islands/hosts";
import { buttonLabels, screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { Field } from "./layout/Field";
import { usePage } from "./layout/PageContext";
import { SupportLink } from "./layout/SupportModal";

export interface RegisterEmailProps {
  /** The address the last code went to, once one was sent: the page says so and keeps it in the e-mail field. */
  sentTo?: string | undefined;
}

/** product §2 RegisterEmail: send a code to an address, then confirm it; two forms, one per action. */
export function RegisterEmail({ sentTo }: RegisterEmailProps) {
  const text = screens.registerEmail;
  // What the user just typed wins over the address of the last code (a refused second address stays in view).
  const typed = usePage().form?.values.email;
  return (
    <Card guarded title={text.title} links={<SupportLink />}>
      <p className="lead">{text.lead}</p>
      <form method="post" action="/registerEmail/sendCode">
        <Field preset="email" value={typed ?? sentTo} />
        <SubmitButton label={buttonLabels.sendCode} />
      </form>
      <h2 className="section-title">{text.codeHeading}</h2>
      <p className="lead" role={sentTo ? "status" : undefined}>
        {sentTo ? `${text.codeSent(sentTo)}${text.codeLead}` : text.codeLead}
      </p>
      <form method="post" action="/registerEmail">
        <Field preset="code" />
        <SubmitButton label={buttonLabels.next} />
      </form>
      <ul className="notes">
        {text.notes.map((note) => (
          <li key={note}>{note}</li>
        ))}
      </ul>
    </Card>
  );
}
