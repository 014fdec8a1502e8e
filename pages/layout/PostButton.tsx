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
      <HiddenFields fields={fields} />
      <button
        type="submit"
        className={{ button: "button", secondary: "button button--secondary", link: "link-button" }[look]}
      >
        {children}
      </button>
    </form>
  );
}

/** Hidden inputs, one per field: what a form carries that its page already knows. */
export function HiddenFields({ fields }: { fields: Record<string, string> }) {
  return Object.entries(fields).map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />);
}
