import { type SendGuard, SubmitButton, type SubmitButtonProps } from "./SubmitButton";

/**
 * product §2 MFASetupSMS 'send code'. Without script it posts the phone form to the warning interstitial. With script
 * it opens the warning instead (also for Enter in the field), and once the warning's button has sent, every further
 * submission of the form is stopped and its buttons disabled: one setup request in flight (product §4).
 */
const warnBeforeSending: SendGuard = (form, warning, setSending, signal) => {
  const dialog = warning ? document.getElementById(warning) : null;
  // An engine without the Popover API (Safari < 17, docs/browsers.md) cannot open the warning: the form posts to the
  // warning interstitial, as without script.
  if (!dialog || typeof dialog.showPopover !== "function") return;
  let inFlight = false;
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
};

/**
 * The SmsSendButton island in the browser: the submit button (SubmitButton.tsx) with the warning before the send.
 * Its own chunk, which only the SMS setup page loads (the other form pages do not fetch it).
 */
export default function SmsSendButton(props: SubmitButtonProps) {
  return <SubmitButton {...props} guard={warnBeforeSending} />;
}
