import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { SupportLink } from "./layout/SupportModal";
import { type ModalKey, screens } from "./messages";

/** SPEC §2 Error: also the page behind the UNEXPECTED_ERROR modal of app.onError. */
export function ErrorPage({ modal }: { modal?: ModalKey | undefined }) {
  return (
    <Card
      title={screens.error.title}
      links={<SupportLink />}
      modals={modal ? <MessageModal message={modal} /> : null}
      guarded={false}
    >
      <p className="lead">{screens.error.body}</p>
    </Card>
  );
}
