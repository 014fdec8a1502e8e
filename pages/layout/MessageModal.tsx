import BackButton from "../../islands/BackButton";
import { common, type ModalKey, modalMessages } from "../messages";
import { Modal } from "./Modal";
import { serviceTopUrl, usePage } from "./PageContext";

/** Modals of the SPEC §8 catalogue that do not allow closing. */
const NOT_CLOSABLE: ReadonlySet<ModalKey> = new Set([
  "maintenance",
  "otherTab",
  "parameterError",
  "callbackParameterError",
]);
/** After these the browser goes back (SPEC §2 entry screen, §8 missing state). */
const GOES_BACK: ReadonlySet<ModalKey> = new Set(["parameterError", "callbackParameterError"]);

/** A SPEC §8 modal opened by the server, e.g. after a failed POST or a missing parameter. */
export function MessageModal({ message }: { message: ModalKey }) {
  const page = usePage();
  const text = modalMessages[message];
  return (
    <Modal id="message-modal" title={text.title} body={text.body} closable={!NOT_CLOSABLE.has(message)} openOnLoad>
      {GOES_BACK.has(message) ? (
        <div className="modal-actions">
          <BackButton label={common.back} fallbackHref={serviceTopUrl(page)} />
        </div>
      ) : null}
    </Modal>
  );
}
