import { Card } from "./layout/Card";
import { MessageModal } from "./layout/MessageModal";
import { type ModalKey, modalMessages } from "./messages";

/** A screen whose required parameters or session state are missing: only the SPEC §8 modal, then back. */
export function ParameterError({
  modal = "parameterError",
}: {
  modal?: Extract<ModalKey, "parameterError" | "callbackParameterError">;
}) {
  return (
    <Card title={modalMessages[modal].title} modals={<MessageModal message={modal} />} guarded={false}>
      <p className="lead">{modalMessages[modal].body}</p>
    </Card>
  );
}
