/**
 * The signed copy of a completed envelope, signed (pades.ts) and made B-LTA (lta.ts), and the audit
 * trail's closing entry that records its SHA-256, so trail and document vouch
 * for each other: the document carries the trail (its certificate of
 * completion, up to the completion), and the trail's last entry names the
 * document's hash. The copy is deterministic (the same bytes at every
 * download), so it is made again rather than stored. The closing entry is
 * written the first time anyone asks for the copy or the trail of a completed
 * envelope, once.
 */
import { createHash } from 'node:crypto';
import {
  SEALED_ENTRY as SEALED,
  chainAuditEntry,
  sealedDetail,
  type AuditEntry,
} from '../../core/envelope/audit.js';
import type { EnvelopeRecord } from '../store/records.js';
import type { SandboxStore } from '../store/store.js';
import { signedCopyPdf } from './signed-copy.js';
import type { SandboxCa } from './signing-identity.js';
import type { Templates } from '../documents/templates.js';

/** What sealing uses of the sandbox's services: its state, its CA and its clock, and where documents' texts come from. */
export interface Sealer {
  store: SandboxStore;
  ca: SandboxCa;
  clock: { now(): number };
  templates?: Templates;
}

/**
 * The signed copy: rendered from the trail up to the completion (not the closing entry, which is
 * about it), signed by the certificate that signed at the completion, then made B-LTA as of then.
 */
export async function signedCopy(services: Sealer, envelope: EnvelopeRecord): Promise<Buffer> {
  const trail = (services.store.audits.get(envelope.id) ?? []).filter((entry) => entry.type !== SEALED);
  const completion = new Date(
    typeof envelope.completed_at === 'string' ? envelope.completed_at : envelope.updated_at,
  );
  const [{ signPdf }, { archivedCopy }] = await Promise.all([import('./pades.js'), import('./lta.js')]);
  const identity = await services.ca.identityAt(completion);
  const signed = await signPdf(
    await signedCopyPdf(envelope, trail, services.templates),
    identity,
    completion,
  );
  return archivedCopy(signed, services.ca, identity, completion);
}

const sealing = new WeakMap<Sealer, Map<string, Promise<void>>>();

/** Adds the closing entry to a completed envelope's trail, once (concurrent callers wait for the same one). */
export function ensureSealed(services: Sealer, envelope: EnvelopeRecord): Promise<void> {
  if (envelope.status !== 'completed') return Promise.resolve();
  const trail = services.store.audits.get(envelope.id) ?? [];
  if (trail.some((entry) => entry.type === SEALED)) return Promise.resolve();
  let inFlight = sealing.get(services);
  if (!inFlight) sealing.set(services, (inFlight = new Map<string, Promise<void>>()));
  const running = inFlight.get(envelope.id);
  if (running) return running;
  const work = (async () => {
    const pdf = await signedCopy(services, envelope);
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    const current = services.store.audits.get(envelope.id) ?? [];
    const entry: AuditEntry = chainAuditEntry(current.at(-1), {
      at: new Date(services.clock.now()).toISOString(),
      type: SEALED,
      actor: 'system',
      detail: sealedDetail(sha256),
    });
    services.store.saveJourney(envelope, [entry], []);
  })().finally(() => inFlight.delete(envelope.id));
  inFlight.set(envelope.id, work);
  return work;
}
