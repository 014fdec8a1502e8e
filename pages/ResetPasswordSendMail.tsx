import { screens } from "../messages/ja";
import { Card } from "./layout/Card";
import { CatalogueModal, CatalogueModalOpener } from "./layout/CatalogueModal";
import { SupportLink } from "./layout/SupportModal";

/** product §2 ResetPasswordSendMail: the reset mail is on its way, valid 60 minutes; help for mail that does not arrive. */
export function ResetPasswordSendMail() {
  const text = screens.resetPasswordSendMail;
  return (
    <Card
      title={text.title}
      links={
        <>
          <CatalogueModalOpener name="mailHelp">{text.helpLink}</CatalogueModalOpener>
          <SupportLink />
        </>
      }
      modals={<CatalogueModal name="mailHelp" />}
    >
      <p className="lead">{text.lead}</p>
    </Card>
  );
}
