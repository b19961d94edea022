/**
 * "Did you mean": the known word closest to a misspelt one. Used for unknown
 * envelope fields (`webhookUrl` → `webhook_url`) and for choices such as
 * `--status complete` → `completed`.
 */

/** Letters only, lower case: `webhookUrl`, `webhook-url` and `WEBHOOK_URL` all read `webhookurl`. */
const squash = (word: string): string => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[rows - 1]![cols - 1]!;
}

/**
 * The candidate `word` most likely stands for, or undefined when none is
 * close: the same letters in another case or separator, a prefix of at least
 * four letters (`complete` → `completed`), or a few typos (up to a third of
 * the word, at most three).
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const w = squash(word);
  if (w === '') return undefined;
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    const c = squash(candidate);
    let score: number;
    if (c === w) score = 0;
    else if (w.length >= 4 && (c.startsWith(w) || w.startsWith(c))) score = 0.5;
    else {
      const distance = editDistance(w, c);
      score =
        distance <= Math.min(3, Math.max(1, Math.floor(w.length / 3))) ? distance : Number.POSITIVE_INFINITY;
    }
    if (score < (best?.score ?? Number.POSITIVE_INFINITY)) best = { candidate, score };
  }
  return best?.candidate;
}
