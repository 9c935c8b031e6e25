/** Polls `check` until it returns true (or a value that is not false/undefined), then returns that; fails after `timeoutMs` with `what`. */
export async function waitUntil<T>(
  what: string,
  check: () => T | false | undefined | Promise<T | false | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== false && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
