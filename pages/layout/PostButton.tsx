import type { ReactNode } from "react";

/** A button that posts a form of its own (no fields but the hidden ones given): works without script. */
export function PostButton({
  action,
  look = "button",
  fields = {},
  children,
}: {
  action: string;
  look?: "button" | "secondary" | "link";
  fields?: Record<string, string>;
  children: ReactNode;
}) {
  return (
    <form method="post" action={action}>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button
        type="submit"
        className={{ button: "button", secondary: "button button--secondary", link: "link-button" }[look]}
      >
        {children}
      </button>
    </form>
  );
}
