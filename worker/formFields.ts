import { z } from "zod/mini";
import { BLANK, type FieldRuleName, type RuleContext, runRule } from "../forms/rules";
import type { AppContext } from "./context";
import { bounded } from "./queryParams";

/** A form field checked by the same rule the islands run while typing (forms/rules.ts); the issue names its message. */
export function ruleField(rule: FieldRuleName, ctx: RuleContext = {}) {
  return z.string().check(
    z.maxLength(1024),
    z.superRefine((value, check) => {
      const outcome = runRule(rule, value, ctx);
      if (outcome !== null) check.addIssue({ code: "custom", message: outcome === BLANK ? "field.required" : outcome });
    }),
  );
}

/** The rule context of this request's brand (product §5: one brand's passwords follow relaxed rules). */
export function brandRules(c: AppContext): RuleContext {
  return { passwordRules: c.get("brand").passwordRules };
}

/** A form with no fields: buttons that post nothing but must still be forms. */
export const emptyForm = () => z.object({});

/**
 * A field that holds JSON (a WebAuthn credential's `toJSON()`, at most `max` characters), read into its schema once:
 * text that is not JSON, or JSON of another shape, is the field's 'required' problem.
 */
export function jsonField<S extends z.ZodMiniType>(schema: S, max: number) {
  return z.pipe(
    z.pipe(
      bounded(2, max),
      z.transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.issues.push({ code: "custom", message: "field.required", input: text });
          return z.NEVER;
        }
      }),
    ),
    schema,
  );
}
