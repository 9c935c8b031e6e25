declare const isDevToolsReachable: (url?: string, timeoutMs?: number) => Promise<boolean>;
export default isDevToolsReachable;
