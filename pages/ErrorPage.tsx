import { screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { SupportLink } from "./layout/SupportModal";

/** product §2 Error: also the page behind a parameter problem or an error with no screen of its own. */
export function ErrorPage() {
  return (
    <Card title={screens.error.title} links={<SupportLink />} guarded={false}>
      <p className="lead">{screens.error.body}</p>
    </Card>
  );
}
