/** The folder the Codex protocol files are generated into (src/infra/agent/codex/protocol). */
export declare const CODEX_PROTOCOL_DIR: string;
/** The pinned Codex CLI (test/fixtures/real-clis). */
export declare const PINNED_CODEX: string;
/** Generates the trimmed Codex protocol files from `codex` into `out`; returns the file names written. */
export declare function generateCodexProtocol(options?: { codex?: string; out?: string }): string[];
