import { useEffect, useRef, useState } from "react";
import { VALIDITY_EVENT } from "./host";

export interface SubmitButtonProps {
  /** Its words, from messages/ja.ts `buttonLabels` on the server. */
  label: string;
  /** Several submit buttons in one form post different actions. */
  name?: string;
  value?: string;
  /** The SMS 'send code' button (the SmsSendButton island): the id of the warning popover whose button sends. */
  warning?: string;
}

/**
 * SPEC §5: the submit button is disabled while any field is invalid; without script it stays enabled.
 *
 * With `warning`, SPEC §2 MFASetupSMS 'send code'. Without script it posts the phone form to the warning
 * interstitial. With script it opens the warning instead (also for Enter in the field), and once the warning's
 * button has sent, every further submission of the form is stopped and its buttons disabled: one setup request in
 * flight (SPEC §4).
 */
export function SubmitButton({ label, name, value, warning }: SubmitButtonProps) {
  const ref = useRef<HTMLButtonElement>(null);
  const [valid, setValid] = useState(true);
  const [sending, setSending] = useState(false);
  useEffect(() => {
    const form = ref.current?.form;
    if (!form) return;
    const listening = new AbortController();
    const { signal } = listening;
    const update = () => setValid(form.checkValidity());
    form.addEventListener("input", update, { signal });
    form.addEventListener(VALIDITY_EVENT, update, { signal });
    const dialog = warning ? document.getElementById(warning) : null;
    let inFlight = false;
    if (dialog)
      form.addEventListener(
        "submit",
        (event: SubmitEvent) => {
          const submitter = event.submitter;
          if (inFlight || !submitter || !dialog.contains(submitter)) {
            event.preventDefault();
            if (!inFlight && form.checkValidity()) dialog.showPopover();
            return;
          }
          inFlight = true;
          setSending(true);
          // After this task: the submission has taken the form's data, and a second click finds the button disabled.
          setTimeout(() => {
            if (submitter instanceof HTMLButtonElement) submitter.disabled = true;
          });
        },
        { signal },
      );
    update();
    return () => listening.abort();
  }, [warning]);
  return (
    <button ref={ref} type="submit" className="button" name={name} value={value} disabled={!valid || sending}>
      {label}
    </button>
  );
}
