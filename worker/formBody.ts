import { HTTPException } from "hono/http-exception";
import { z } from "zod";
import { BLANK, type FieldMessageKey, type FieldRuleName, type RuleContext, runRule } from "../forms/rules";
import { fieldMessages } from "../pages/messages";
import type { AppContext } from "./context";

const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/** A form field checked by the same rule the islands run while typing (forms/rules.ts). */
export function ruleField(rule: FieldRuleName, ctx: RuleContext = {}) {
  return z
    .string()
    .max(1024)
    .superRefine((value, check) => {
      const outcome = runRule(rule, value, ctx);
      if (outcome !== null) check.addIssue({ code: "custom", message: outcome === BLANK ? "field.required" : outcome });
    });
}

/** A hidden or opaque form value: bounded, required. */
export const formValue = (max = 256) => z.string().min(1).max(max);

export type FormResult<T> =
  | { ok: true; data: T }
  | { ok: false; errors: Record<string, string>; values: Record<string, string> };

/**
 * Reads a POSTed form (ARCHITECTURE §3/§8: form routes refuse JSON and anything but a form) and
 * validates it; a rejected form is a value with each field's Japanese message, typed values kept.
 */
export async function readForm<S extends z.ZodType>(c: AppContext, schema: S): Promise<FormResult<z.infer<S>>> {
  if (!FORM_TYPES.test(c.req.header("content-type") ?? "")) throw new HTTPException(415);
  const body = await c.req.parseBody();
  const values = Object.fromEntries(
    Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
  const parsed = schema.safeParse(values);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? "");
    if (field in errors) continue;
    errors[field] = fieldMessages[issue.message as FieldMessageKey] ?? fieldMessages["field.required"];
  }
  return { ok: false, errors, values };
}
