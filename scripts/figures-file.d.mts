// Types of figures-file.mjs, for the reliability suite (TypeScript) that shares it with the benchmarks.
export function measuredOn(now?: Date): string;
export function figureTable(
  rows: ReadonlyArray<readonly [string, string | number]>,
  heads?: readonly [string, string],
): string;
export function updateFigures(
  file: string,
  page: { title: string; writer: string; intro: string; order?: readonly string[] },
  sections: Record<string, string>,
): void;
