export interface BackButtonProps {
  /** Where the link goes without script, or with no page to go back to. */
  fallbackHref: string;
  /** Its words, from the server. */
  label: string;
}

/** product §2/§8: after a parameter problem "history goes back"; without script it is a plain link. */
export default function BackButton({ fallbackHref, label }: BackButtonProps) {
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
      {label}
    </a>
  );
}
