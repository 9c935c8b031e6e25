/** `tool`: a tool call or command the agent ran; its first line is the folded summary, the rest the detail. */
export type TranscriptKind = 'user_prompt' | 'assistant_answer' | 'notice' | 'output' | 'tool';

export interface TranscriptEntry {
  readonly position: number;
  readonly kind: TranscriptKind;
  readonly content: string;
  readonly createdAt: number;
}
