/** The exhaustiveness check that ends every `switch` over a union: a case left out is a type error here. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}
