import { useEffect, useRef, useState } from "react";
import { buttonLabels } from "../messages/ja";
import { island, VALIDITY_EVENT } from "./host";

export interface SmsSendButtonProps {
  /** The id of the warning popover (SPEC §2: SMS come from abroad) whose own button really sends. */
  warning: string;
}

/**
 * SPEC §2 MFASetupSMS 'send code'. Without script it posts the phone form to the warning interstitial. With
 * script it opens the warning instead (also for Enter in the field), and once the warning's button has sent,
 * every further submission of the form is stopped and its buttons disabled: one setup request in flight (SPEC §4).
 */
function SmsSendButton({ warning }: SmsSendButtonProps) {
  const ref = useRef<HTMLButtonElement>(null);
  const [valid, setValid] = useState(true);
  const [sending, setSending] = useState(false);

  useEffect(() => {
    const form = ref.current?.form;
    const dialog = document.getElementById(warning);
    if (!form || !dialog) return;
    let inFlight = false;
    const update = () => setValid(form.checkValidity());
    const submit = (event: SubmitEvent) => {
      if (inFlight) {
        event.preventDefault();
        return;
      }
      const submitter = event.submitter;
      if (!submitter || !dialog.contains(submitter)) {
        event.preventDefault();
        if (form.checkValidity()) dialog.showPopover();
        return;
      }
      inFlight = true;
      setSending(true);
      // After this task: the submission has taken the form's data, and a second click finds the button disabled.
      setTimeout(() => {
        if (submitter instanceof HTMLButtonElement) submitter.disabled = true;
      });
    };
    form.addEventListener("input", update);
    form.addEventListener(VALIDITY_EVENT, update);
    form.addEventListener("submit", submit);
    update();
    return () => {
      form.removeEventListener("input", update);
      form.removeEventListener(VALIDITY_EVENT, update);
      form.removeEventListener("submit", submit);
    };
  }, [warning]);

  return (
    <button ref={ref} type="submit" className="button" disabled={!valid || sending}>
      {buttonLabels.sendSmsCode}
    </button>
  );
}

export default island("SmsSendButton", SmsSendButton);
