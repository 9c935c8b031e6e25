export type TranscriptKind = 'user_prompt' | 'assistant_answer' | 'notice' | 'output';

export interface TranscriptEntry {
  readonly position: number;
  readonly kind: TranscriptKind;
  readonly content: string;
  readonly createdAt: number;
}
