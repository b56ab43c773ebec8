/**
 * Schema failures as 400 problems listing every issue with where it is (`json.body`, `query.offset`,
 * `header.mq-delay-ms`), and the hook that makes @hono/zod-openapi throw them instead of its default.
 */
import type { z } from "@hono/zod-openapi";
import { GatewayProblem } from "./errors.ts";

export interface Issue {
  where: string;
  message: string;
}

export function validationProblem(error: z.ZodError | null, target: string, detail?: string): GatewayProblem {
  const issues: Issue[] = (error?.issues ?? []).map((i) => ({
    where: [target, ...i.path.map(String)].join("."),
    message: i.message,
  }));
  return new GatewayProblem({
    status: 400,
    slug: "validation",
    title: "Invalid request",
    detail: detail ?? issues.map((i) => `${i.where}: ${i.message}`).join("; "),
    extra: { errors: issues },
  });
}

/** The defaultHook of the app: a failed validation throws, so app.onError answers it. */
export function validationHook(result: { success: boolean; error?: unknown; target: string }): void {
  if (!result.success) throw validationProblem(result.error as z.ZodError, result.target);
}
