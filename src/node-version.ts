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

/**
 * The first screen's line when `npm start` found an older Node on the machine
 * (`machine`, passed by xtask/with-node.mjs as GROVE_MACHINE_NODE) and runs
 * Grove on the pinned one (`running`): its own stderr line is hidden by the
 * full screen at once. Short enough for the footer of an 80-column terminal.
 */
export function pinnedNodeNotice(machine: string, running: string): string {
  const needed = MINIMUM_NODE.replace(/\.0$/, '');
  return `Node.js ${machine} is too old for Grove (needs ${needed}+): running on Node ${running}`;
}
