import { screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { ServiceTopLink } from "./layout/ServiceTopLink";
import { SupportLink } from "./layout/SupportModal";

export function NotFound() {
  return (
    <Card
      title={screens.notFound.title}
      links={
        <>
          <SupportLink />
          <ServiceTopLink />
        </>
      }
    >
      <p className="lead">{screens.notFound.body}</p>
    </Card>
  );
}
