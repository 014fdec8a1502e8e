import { screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";

/** The `result` query values the change-e-mail links carry (product §2 ChangeEmailResult). */
export const changeEmailResults = ["sent_to_new_email", "completed", "invalid", "error"] as const;
export type ChangeEmailResultKind = (typeof changeEmailResults)[number];

function resultText(result: ChangeEmailResultKind): { heading: string; body: string } {
  const text = screens.changeEmailResult;
  switch (result) {
    case "sent_to_new_email":
      return { heading: text.sentToNewEmailTitle, body: text.sentToNewEmailBody };
    case "completed":
      return { heading: text.completedTitle, body: text.completedBody };
    case "invalid":
    case "error":
      return { heading: text.failedTitle, body: text.failedBody };
  }
}

/** product §2 ChangeEmailResult: where the confirmation links land; only a completed change links to the service top. */
export function ChangeEmailResult({ result }: { result: ChangeEmailResultKind }) {
  const { heading, body } = resultText(result);
  return (
    <Card
      title={screens.changeEmailResult.title}
      links={
        <>
          {result === "completed" ? <ServiceTopLink /> : null}
          <SupportLink />
        </>
      }
    >
      <h2 className="section-title">{heading}</h2>
      <p className="lead">{body}</p>
    </Card>
  );
}
