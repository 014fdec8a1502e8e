import { passwordChecklist } from "../../forms/rules";
import type { PasswordCheck } from "../../messages/ja";
import { rawBrands } from "../../themes/data/brands";

// The upstream enforces the same product §5 rules the site's forms check, so it shares their one definition,
// and reads each service's password rules from the same brand data.
const details: Record<PasswordCheck, string> = {
  length: "Password must be 8 or more and under 256 characters",
  lowercase: "Password must include at least one lowercase letter",
  uppercase: "Password must include at least one uppercase letter",
  symbol: "Password must include at least one symbol (e.g. @#%&?!)",
  digit: "Password must include at least one digit",
  allowedCharacters: "Password contains unusable characters",
};

const relaxedBrands = new Set(rawBrands.filter((brand) => brand.passwordRules === "relaxed").map((brand) => brand.id));

/** The first product §5 rule the password breaks, in words, or undefined; a relaxed service skips symbol and charset. */
export function passwordProblem(password: string, serviceId: string | undefined): string | undefined {
  const passwordRules = serviceId !== undefined && relaxedBrands.has(serviceId) ? "relaxed" : "standard";
  const broken = passwordChecklist(password, { passwordRules }).find((row) => !row.ok);
  return broken && details[broken.check];
}
