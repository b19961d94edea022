/**
 * DNS rebinding for tests (rebinding.cjs does it; this types it): a name whose
 * lookups flip between 127.0.0.1 and an address that is not local, and a
 * tripwire that counts, and stops before any packet, every connection to an
 * address outside 127.0.0.0/8.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** A name no resolver knows: only the staged lookup answers it. */
export const REBINDING_NAME = 'rebinding.sign-cli.test';
/** Not local (example.com's old address): only ever a value to refuse, never connected to. */
export const NOT_LOCAL_ADDRESS = '93.184.216.34';
export const FLIPPING = ['127.0.0.1', NOT_LOCAL_ADDRESS];

export interface RebindingCounts {
  /** Lookups of the name. */
  lookups: number;
  /** How often each address was the answer. */
  answered: Record<string, number>;
  /** Addresses sockets were handed to connect to, and how often. */
  handed: Record<string, number>;
  /** Those outside 127.0.0.0/8 (each stopped by the tripwire before any packet). */
  reached: Record<string, number>;
}

interface RebindingModule {
  stage(options: { name: string; answers: string[]; log?: string }): {
    counts: RebindingCounts;
    restore(): void;
  };
}

const rebinding = createRequire(import.meta.url)('./rebinding.cjs') as RebindingModule;

/** Staged in this process until restore(). */
export function stageRebinding(name = REBINDING_NAME, answers = FLIPPING) {
  return rebinding.stage({ name, answers });
}

/** The environment that stages it in a spawned CLI, writing its counts to `log` as they change. */
export function rebindingEnv(log: string, name = REBINDING_NAME, answers = FLIPPING): Record<string, string> {
  return {
    NODE_OPTIONS: `--require ${join(import.meta.dirname, 'rebinding.cjs')}`,
    REBINDING_STAGE: JSON.stringify({ name, answers, log }),
  };
}
