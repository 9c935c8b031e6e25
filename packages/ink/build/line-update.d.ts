export default function lineUpdate(previous: string, next: string, columns: number | undefined): string;
