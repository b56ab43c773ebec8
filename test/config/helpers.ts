/** Shared by the config tests. */
import { ConfigError } from "../../src/config/errors.ts";

/** The message of the ConfigError `promise` rejects with; fails the test on anything else. */
export async function configError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error("expected a ConfigError");
}
