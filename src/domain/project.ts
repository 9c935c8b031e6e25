export interface Project {
  readonly id: number;
  readonly path: string;
  readonly displayName: string;
  readonly createdAt: number;
  readonly lastOpenedAt: number;
}
