// Polling for set-up and settling in tests: a generous bound, never a timing claim.

/** Resolves once `check` holds; fails naming `what` after `ms`. */
export async function waitFor(
  what: string | (() => string),
  check: () => boolean | Promise<boolean>,
  ms = 20_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
