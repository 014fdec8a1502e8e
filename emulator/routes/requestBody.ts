import type { z } from "zod";
import { problems } from "../contract/problem";

/** Names the fields that failed, never their values (they may be passwords). */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; ");
}

/** Parses a JSON body against its schema; anything else is 400 invalid_request. */
export async function jsonBody<T extends z.ZodType>(request: Request, schema: T): Promise<z.output<T>> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw problems.invalidRequest("The body must be JSON.");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw problems.invalidRequest(describeIssues(parsed.error));
  return parsed.data;
}

export function queryParams(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams);
}

/** An `application/x-www-form-urlencoded` body's bytes, as text: the OAuth2 endpoints' bodies. */
export async function formText(request: Request): Promise<string> {
  // Decoded from bytes: workerd warns on every `.text()` of a body whose type is not text (the test output's noise).
  return new TextDecoder().decode(await request.arrayBuffer());
}

export function isFormBody(request: Request): boolean {
  return (request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded");
}
