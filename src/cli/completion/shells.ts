/** The shells a completion script is written for: named by the command, written by scripts.ts. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];
