/** A command line Grove cannot accept: printed with the usage, exit code 2. */
export class UsageError extends Error {
  readonly kind = 'usage' as const;
  /** The headless command it belongs to (its usage line is printed), if any. */
  command: string | null = null;
}
