/**
 * Shared pieces of the reliability tests: distinct envelope NDJSON files, the
 * built CLI spawned with its output streamed, and counts taken from the
 * sandbox's own list of envelopes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BIN, ROOT, cleanEnv, type CliResult } from '../helpers/cli.js';

const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;

/** examples/envelope.json without webhook_url, so no delivery leaves the sandbox. */
export function baseEnvelope(): Record<string, unknown> {
  const { webhook_url: _hook, ...envelope } = structuredClone(EXAMPLE);
  return envelope;
}

/** `n` distinct envelopes, one per line (own title and contract_id each); returns the file's path. */
export function writeNdjson(dir: string, name: string, n: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= n; i++)
    lines.push(
      JSON.stringify({
        ...baseEnvelope(),
        title: `Reliability ${name} ${i}`,
        contract_id: `REL-${name}-${i}`,
      }),
    );
  const path = join(dir, `${name}.ndjson`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** One `--json` line of `envelopes create`. */
export interface CreateLine {
  input: string;
  status: 'created' | 'failed';
  http_status: number | null;
  idempotency_key: string | null;
  envelope: { id: string; contract_id?: string } | null;
  error: { message: string } | null;
  already_created?: boolean;
  skipped?: boolean;
}

/** The complete JSON lines of a stdout (a run killed mid-line leaves a torn last line: skipped). */
export function parseLines(stdout: string): CreateLine[] {
  const lines: CreateLine[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim()) continue;
    try {
      lines.push(JSON.parse(line) as CreateLine);
    } catch {
      // torn line
    }
  }
  return lines;
}

/** The `created N, already created M, failed K` summary of a run's stderr. */
export function summary(stderr: string): { created: number; already: number; failed: number } | undefined {
  const match = /created ([\d,]+)(?: in [a-z?]+)?, already created ([\d,]+), failed ([\d,]+)/.exec(stderr);
  if (!match) return undefined;
  const n = (s: string) => Number(s.replace(/,/g, ''));
  return { created: n(match[1]!), already: n(match[2]!), failed: n(match[3]!) };
}

export interface SpawnedCli {
  child: ChildProcess;
  /** Complete stdout lines so far. */
  lines: string[];
  /** Resolves when the process has exited and its output is closed (bounded by timeoutMs: SIGKILL). */
  done: Promise<CliResult>;
}

/** Spawns the built binary (clean env as runCli) and streams its stdout lines to `onLine`. */
export function spawnCli(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    timeoutMs?: number;
    onLine?: (line: string, count: number) => void;
  } = {},
): SpawnedCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    options.onLine?.(line, lines.length);
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, lines, done };
}

export interface SandboxEnvelope {
  id: string;
  contract_id: string | null;
  title: string;
  status: string;
  created_at: string;
}

export interface EnvelopeCounts {
  /** Envelopes whose contract_id starts with the prefix. */
  found: number;
  /** Distinct contract_ids among them. */
  distinct: number;
  /** Envelopes beyond the first of each contract_id. */
  duplicates: number;
  envelopes: SandboxEnvelope[];
}

/** Counts envelopes (and duplicates by contract_id) from GET /_sandbox/envelopes. */
export async function countEnvelopes(
  baseUrl: string,
  apiKey: string,
  contractPrefix: string,
): Promise<EnvelopeCounts> {
  const response = await fetch(`${baseUrl}/_sandbox/envelopes`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  if (!response.ok) throw new Error(`/_sandbox/envelopes: HTTP ${response.status}`);
  const list = ((await response.json()) as { data: SandboxEnvelope[] }).data.filter((e) =>
    (e.contract_id ?? '').startsWith(contractPrefix),
  );
  const distinct = new Set(list.map((e) => e.contract_id)).size;
  return { found: list.length, distinct, duplicates: list.length - distinct, envelopes: list };
}

/** Largest number of envelopes the sandbox created within any 60-second window (by created_at). */
export function worstCreatedWindow(envelopes: SandboxEnvelope[], windowMs = 60_000): number {
  const times = envelopes.map((e) => Date.parse(e.created_at)).sort((a, b) => a - b);
  let worst = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    worst = Math.max(worst, end - start + 1);
  }
  return worst;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const seconds = (since: number) => Math.round((Date.now() - since) / 100) / 10;
