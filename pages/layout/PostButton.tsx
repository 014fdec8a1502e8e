import type { ReactNode } from "react";

/** A button that posts a form of its own (no fields but the hidden ones given): works without script. */
export function PostButton({
  action,
  look = "button",
  fields = {},
  children,
}: {
  action: string;
  look?: "button" | "link";
  fields?: Record<string, string>;
  children: ReactNode;
}) {
  return (
    <form method="post" action={action}>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={look === "link" ? "link-button" : "button"}>
        {children}
      </button>
    </form>
  );
}
