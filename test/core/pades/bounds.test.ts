/**
 * The verifier's bounds (pdf-budget.ts), with limits made small so that the
 * files stay small: a /Contents too long to be a signature fails its
 * signature unread; streams inflate to a bound each and in all (a compression
 * bomb is refused, exit 2 at the CLI); the work is counted, linear in the
 * file's size whatever the junk after a signature, an object is read once for
 * all the revisions that share it, and a file that would cost more than its
 * size warrants is refused; a verification yields to the event loop and stops
 * when its signal is aborted. Counts, not times: the meter's units are what is
 * asserted.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { addSignature, appendRevision, basePdf } from '../../helpers/pdf-build.js';
import { InterruptedError } from '../../../src/core/errors.js';
import {
  NotAPdfError,
  PdfLimitError,
  verifyPdf,
  type PdfLimits,
  type PdfVerdict,
} from '../../../src/core/pades/verify.js';
import { readPdf } from '../../../src/core/pades/pdf-file.js';
import { findSignatures } from '../../../src/core/pades/pdf-signatures.js';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

interface Run {
  verdict?: PdfVerdict;
  error?: Error;
  units: number;
}

/** The verdict (or the refusal) and the work it took. */
async function run(pdf: Buffer, limits: Partial<PdfLimits> = {}): Promise<Run> {
  let units = Number.NaN;
  try {
    const verdict = await verifyPdf(pdf, { systemRoots: false, limits, onWork: (w) => (units = w.units) });
    return { verdict, units };
  } catch (error) {
    if (!(error instanceof NotAPdfError)) throw error;
    return { error, units };
  }
}

/** A signature whose CMS is never read: only what is around it matters here. */
const fakeSignature = (pdf: Buffer, size: number) =>
  addSignature(pdf, { field: 'Sig', size, sign: () => Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01]) });

/** The last startxref's offset and the last trailer's /Size. */
function tail(pdf: Buffer): { startxref: number; size: number } {
  const text = pdf.toString('latin1');
  const startxref = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
  const size = Number(/\/Size (\d+)/.exec(text.slice(text.lastIndexOf('trailer')))?.[1] ?? 0);
  return { startxref, size };
}

/**
 * An update whose objects all live in object streams (one member each, `padding` NULs after it,
 * which inflate but read as white-space): `members[i]` is object 40 + i, in stream 60 + i; the
 * catalog (object 1) is object 40, so reading the file decodes the first stream, and reading the
 * AcroForm's fields the next ones.
 */
function inObjectStreams(pdf: Buffer, members: string[], padding: number): Buffer {
  const { startxref } = tail(pdf);
  let body = pdf.toString('latin1');
  const rows: [number, number, number, number][] = [];
  members.forEach((member, i) => {
    const header = `${40 + i} 0 `;
    const data = deflateSync(Buffer.concat([latin1(header + member), Buffer.alloc(padding)]), { level: 9 });
    rows.push([60 + i, 1, Buffer.byteLength(body, 'latin1'), 0]);
    body += `${60 + i} 0 obj\n<< /Type /ObjStm /N 1 /First ${header.length} /Filter /FlateDecode /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream\nendobj\n`;
    rows.push([40 + i, 2, 60 + i, 0]);
  });
  const xrefAt = Buffer.byteLength(body, 'latin1');
  rows.push([99, 1, xrefAt, 0]);
  rows.sort((a, b) => a[0] - b[0]);
  const raw = Buffer.concat(
    rows.map(([, type, a, b]) =>
      Buffer.from([
        type,
        (a >>> 24) & 255,
        (a >>> 16) & 255,
        (a >>> 8) & 255,
        a & 255,
        (b >>> 8) & 255,
        b & 255,
      ]),
    ),
  );
  const data = deflateSync(raw);
  body += `99 0 obj\n<< /Type /XRef /Size 100 /Root 40 0 R /Prev ${startxref} /W [1 4 2] /Index [${rows.map((r) => `${r[0]} 1`).join(' ')}] /Filter /FlateDecode /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`;
  return latin1(body);
}

type Chunk = (at: number, i: number, previous: number) => string;

/** `count` chunks of what looks like PDF after the last %%EOF, each made by `chunk(its offset, its index, the previous one's offset)`. */
function junk(pdf: Buffer, count: number, chunk: Chunk): Buffer {
  const parts = [pdf.toString('latin1')];
  let at = pdf.length;
  let previous = at;
  for (let i = 0; i < count; i++) {
    const text = chunk(at, i, previous);
    parts.push(text);
    previous = at;
    at += text.length;
  }
  return latin1(parts.join(''));
}

/** Junk that makes a reader try every %%EOF: sections that read but lead nowhere, objects, keywords. */
const JUNK: Record<string, Chunk> = {
  'cross-reference sections without a catalog': (at) =>
    `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 >>\nstartxref\n${at}\n%%EOF\n`,
  'objects named by startxref, with a wrong /Length': (at, i) =>
    `${i + 10} 0 obj\n<< /Type /XRef /Length 99999 >>\nstream\nxxxx\nstartxref\n${at}\n%%EOF\n`,
  'startxref and %%EOF alone': (at) => `startxref\n${at + 3}\n%%EOF\n`,
  'sections whose /Prev names themselves': (at) =>
    `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 /Root 1 0 R /Prev ${at} >>\nstartxref\n${at}\n%%EOF\n`,
  // Each %%EOF's chain of /Prev goes down through all the earlier ones to one that does not read.
  'sections chained by /Prev down to nothing': (at, i, previous) =>
    `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 /Root 1 0 R /Prev ${i === 0 ? at + 3 : previous} >>\nstartxref\n${at}\n%%EOF\n`,
};

describe("a signature's /Contents", () => {
  it('over the bound fails its signature unread, in hex or too long to decode at all', async () => {
    const base = basePdf();
    // 8 KB: decoded, and over a bound of 6 KB; over 1 KB, more than three times over in hex: not decoded.
    const signed = await fakeSignature(base, 8192);
    for (const [limit, detail] of [
      [6000, /^\/Contents holds 8192 bytes, more than the 6 KB a signature may hold here/],
      [1024, /^\/Contents holds 16386 bytes as written, more than the 1 KB a signature may hold here/],
    ] as const) {
      const { verdict } = await run(signed, { contentsBytes: limit });
      expect(verdict!.valid).toBe(false);
      expect(verdict!.signatures[0]!.checks.map((c) => c.check)).toEqual(['signature', 'changes after']);
      expect(verdict!.signatures[0]!.checks[0]).toMatchObject({
        ok: false,
        detail: expect.stringMatching(detail),
      });
    }
    // At the default bound (2 MB), a 3 MB one: its 6 MB of hex are passed over, never decoded.
    const huge = await fakeSignature(base, 3 * 1024 * 1024);
    const { verdict } = await run(huge);
    expect(verdict!.signatures[0]!.checks[0]).toMatchObject({
      check: 'signature',
      ok: false,
      detail: expect.stringContaining('/Contents holds 6291458 bytes as written, more than the 2048 KB'),
    });
    const [signature] = findSignatures(readPdf(huge).revisions.at(-1)!);
    expect({ decoded: signature!.contents.length, written: signature!.contentsTooLong }).toEqual({
      decoded: 0,
      written: 6291458,
    });
  });
});

describe('streams', () => {
  const catalog = '<< /Type /Catalog /Pages 2 0 R /AcroForm 41 0 R >>';
  const chain = [
    catalog,
    '<< /Fields [42 0 R] >>',
    '<< /FT /Sig /T (a) /Kids [43 0 R] >>',
    '<< /T (b) /Kids [44 0 R] >>',
    '<< /T (c) /V << /Type /Sig >> >>',
  ];

  it('inflate to a bound each: past it the file is refused as a compression bomb', async () => {
    const bomb = inObjectStreams(basePdf(), [catalog], 1_000_000);
    expect(bomb.length).toBeLessThan(10_000);
    const { error } = await run(bomb, { streamBytes: 100_000 });
    expect(error).toBeInstanceOf(PdfLimitError);
    expect(error!.message).toBe(
      'a stream inflates to more than 98 KB (a compression bomb): not a document this check verifies',
    );
    // Under the bound, the same file reads.
    expect((await run(bomb, { streamBytes: 2_000_000 })).verdict).toBeDefined();
  });

  it('and in all: streams under the bound each, past it together, are refused', async () => {
    const pdf = inObjectStreams(basePdf(), chain, 50_000);
    const { verdict } = await run(pdf, { streamBytes: 100_000, decodedBytes: 1_000_000 });
    expect(verdict!.signatures.map((s) => s.field)).toEqual(['a.b.c']);
    const { error } = await run(pdf, { streamBytes: 100_000, decodedBytes: 200_000 });
    expect(error!.message).toBe(
      'its streams inflate to more than 195 KB in all (a compression bomb): not a document this check verifies',
    );
  });
});

describe('the work', () => {
  it('is linear in the size of the junk after a signature, whatever the junk', async () => {
    const signed = await fakeSignature(basePdf(), 256);
    for (const [name, chunk] of Object.entries(JUNK)) {
      const small = await run(junk(signed, 2000, chunk));
      const large = await run(junk(signed, 8000, chunk));
      const perChunk = (large.units - small.units) / 6000;
      // Each %%EOF costs the same, however many came before it.
      expect({
        name,
        ratio: (large.units - small.units) / (small.units - (await run(signed)).units),
      }).toEqual({ name, ratio: expect.closeTo(3, 0) });
      expect({ name, perChunk: perChunk < 20_000 }).toEqual({ name, perChunk: true });
    }
  });

  it('reads an object once for all the revisions that share it', async () => {
    // A 1 MB stream whose /Length is wrong: each reading of it looks for its endstream, 1 MB away.
    const base = basePdf({
      objects: { 10: `<< /Length 7 >>\nstream\n${'x'.repeat(1 << 20)}\nendstream` },
      catalog: ' /Extra 10 0 R',
    });
    const signed = await fakeSignature(base, 256);
    const revisions = (n: number) => {
      let pdf = signed;
      for (let i = 0; i < n; i++) pdf = appendRevision(pdf, { 20: `<< /Note ${i} >>` });
      return pdf;
    };
    const ten = await run(revisions(10));
    const forty = await run(revisions(40));
    expect(ten.verdict!.revisions).toHaveLength(12);
    expect(forty.verdict!.revisions).toHaveLength(42);
    // Thirty more revisions, each walking the document: far less than thirty more readings of 1 MB.
    expect(forty.units - ten.units).toBeLessThan(30 * (1 << 20) * 0.25);
  });

  it('past the allowance, the file is refused', async () => {
    const signed = await fakeSignature(basePdf(), 256);
    const pdf = junk(signed, 2000, JUNK['cross-reference sections without a catalog']!);
    const { units } = await run(pdf);
    const { error } = await run(pdf, { work: units / 2 });
    expect(error).toBeInstanceOf(PdfLimitError);
    expect(error!.message).toMatch(
      /^reading it takes more work than a PDF of \d+ KB needs \(more than \d+ million steps\): its structure repeats or nests to exhaust readers/,
    );
    // The allowance grows with the file: the same work is allowed a larger file.
    expect(
      (await run(pdf, { workBase: 0, workPerByte: Math.ceil(units / pdf.length) })).verdict,
    ).toBeDefined();
  });

  it('object streams that name each other as their stream are no stack overflow', async () => {
    // Object 5 is in stream 6, and 6 in stream 5.
    const base = basePdf({ catalog: ' /Extra 5 0 R' });
    const { startxref } = tail(base);
    const rows = [
      [5, 2, 6, 0],
      [6, 2, 5, 0],
      [9, 1, base.length, 0],
    ] as const;
    const raw = Buffer.concat(rows.map(([, t, a, b]) => Buffer.from([t, 0, 0, 0, a, 0, b])));
    const data = deflateSync(raw);
    const pdf = Buffer.concat([
      base,
      latin1(
        `9 0 obj\n<< /Type /XRef /Size 10 /Root 1 0 R /Prev ${startxref} /W [1 4 2] /Index [5 2 9 1] /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
      ),
      data,
      latin1(`\nendstream\nendobj\nstartxref\n${base.length}\n%%EOF\n`),
    ]);
    const file = readPdf(pdf);
    expect(file.revisions).toHaveLength(2);
    expect(file.revisions[1]!.get(5)).toBeUndefined();
    expect((await run(pdf)).verdict!.valid).toBe(false);
  });
});

describe('a verification in progress', () => {
  const slow = async () =>
    junk(await fakeSignature(basePdf(), 256), 40_000, JUNK['cross-reference sections without a catalog']!);
  /**
   * A monotonic clock 50 ms later at every reading: every pause of the reading is a turn of the
   * event loop, however fast this machine is. `onReading` is told the reading's number.
   */
  const jumpingClock = (onReading: (n: number) => void = () => {}) => {
    let readings = 0;
    return {
      monotonic: () => {
        readings++;
        onReading(readings);
        return readings * 50;
      },
      readings: () => readings,
    };
  };

  it('gives the event loop its turns', async () => {
    const pdf = await slow();
    let turns = 0;
    const clock = jumpingClock();
    await verifyPdf(pdf, {
      systemRoots: false,
      // Each turn, an immediate queued before it runs: counted there.
      monotonic: () => {
        setImmediate(() => turns++);
        return clock.monotonic();
      },
    });
    // The file is read in many pauses (40,000 sections): the event loop ran in each of them.
    expect(turns).toBeGreaterThan(10);
  });

  it('stops at its next turn once its signal is aborted', async () => {
    const pdf = await slow();
    // The whole verification, for how many times it looks at the clock.
    const whole = jumpingClock();
    await verifyPdf(pdf, { systemRoots: false, monotonic: whole.monotonic });
    expect(whole.readings()).toBeGreaterThan(10);
    // Aborted at the clock's fourth reading (as its second turn begins): it stops as that turn
    // ends (the fifth reading), mid-way.
    const controller = new AbortController();
    let units = 0;
    const clock = jumpingClock((n) => n === 4 && controller.abort());
    const verifying = verifyPdf(pdf, {
      systemRoots: false,
      signal: controller.signal,
      monotonic: clock.monotonic,
      onWork: (w) => (units = w.units),
    });
    await expect(verifying).rejects.toThrow(InterruptedError);
    expect(clock.readings()).toBe(5);
    expect(units).toBe(0);
    // Aborted before it starts: nothing is read.
    await expect(verifyPdf(basePdf(), { signal: AbortSignal.abort() })).rejects.toThrow(InterruptedError);
  });
});
