// The Node.js versions Grove runs on. Kept free of imports so the entry point
// can check the version before loading anything that needs a newer Node.

/** The oldest Node.js Grove supports. */
export const MINIMUM_NODE = '22.19.0';

/** Null when `version` (e.g. "24.21.0") is new enough; otherwise the one line to print. */
export function versionProblem(version: string): string | null {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  const [needMajor = 0, needMinor = 0] = MINIMUM_NODE.split('.').map((part) =>
    Number.parseInt(part, 10),
  );
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return `Node.js ${version} is too old: Grove needs Node.js ${MINIMUM_NODE} or newer (22.19+, 24 or 26; 24 LTS recommended).`;
}
