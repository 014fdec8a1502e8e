import { common } from "../messages/ja";
import { island } from "./host";

export interface BackButtonProps {
  /** Where the link goes without script, or with no page to go back to. */
  fallbackHref: string;
}

/** SPEC §2/§8: after a parameter problem "history goes back"; without script it is a plain link. */
function BackButton({ fallbackHref }: BackButtonProps) {
  return (
    <a
      className="button"
      href={fallbackHref}
      onClick={(event) => {
        if (window.history.length > 1) {
          event.preventDefault();
          window.history.back();
        }
      }}
    >
      {common.back}
    </a>
  );
}

export default island("BackButton", BackButton);
