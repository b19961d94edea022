/**
 * Stream data decoded (ISO 32000-2 7.4): FlateDecode, inflated to a bound against compression
 * bombs, with the PNG row predictors. Apart from the lexer, which keeps stream data as stored: the
 * verifier decodes only the streams whose content it reads (object and cross-reference streams).
 */
import { inflateSync } from 'node:zlib';
import type { Meter } from './pdf-budget.js';
import { PdfSyntaxError, isDict, isName, type PdfDict, type PdfStream } from './pdf-objects.js';

/** The most a stream may decode to without a meter (cross-reference and object streams are kilobytes to a few megabytes). */
const MAX_DECODED_BYTES = 64 * 1024 * 1024;

/**
 * A stream's data decoded: FlateDecode (with PNG or TIFF predictors) or none; anything else throws.
 * Inflated to a bound: 64 MB, or what `meter` allows (PdfLimitError past it: a compression bomb).
 */
export function decodeStream(stream: PdfStream, meter?: Meter): Uint8Array {
  const filter = stream.dict.entries.get('Filter');
  const filters = Array.isArray(filter) ? filter : filter ? [filter] : [];
  let data: Uint8Array = stream.raw;
  const parms = stream.dict.entries.get('DecodeParms');
  for (const [i, f] of filters.entries()) {
    if (!isName(f, 'FlateDecode'))
      throw new PdfSyntaxError(`stream filter ${isName(f) ? f.name : '?'} is not supported here`);
    // Bounded: a hostile stream that inflates to gigabytes stops at the limit.
    const limit = meter ? meter.inflateLimit() : MAX_DECODED_BYTES;
    try {
      data = inflateSync(data, {
        finishFlush: 2 /* Z_SYNC_FLUSH: tolerate a missing end */,
        maxOutputLength: Math.max(1, limit),
      });
    } catch (error) {
      if (meter && (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw meter.bomb();
      throw error;
    }
    if (meter) {
      if (data.length > limit) throw meter.bomb();
      meter.inflated(data.length);
    }
    const p = Array.isArray(parms) ? parms[i] : parms;
    if (isDict(p)) data = unpredict(data, p);
  }
  return data;
}

/** Undoes the PNG row predictors (cross-reference streams use them). */
function unpredict(data: Uint8Array, parms: PdfDict): Uint8Array {
  const predictor = parms.entries.get('Predictor');
  if (typeof predictor !== 'number' || predictor < 10) return data;
  const columns =
    typeof parms.entries.get('Columns') === 'number' ? (parms.entries.get('Columns') as number) : 1;
  const colors =
    typeof parms.entries.get('Colors') === 'number' ? (parms.entries.get('Colors') as number) : 1;
  const bpc =
    typeof parms.entries.get('BitsPerComponent') === 'number'
      ? (parms.entries.get('BitsPerComponent') as number)
      : 8;
  const bpp = Math.max(1, Math.ceil((colors * bpc) / 8));
  const rowLength = Math.ceil((columns * colors * bpc) / 8);
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLength + 1)]!;
    const src = r * (rowLength + 1) + 1;
    const dst = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const raw = data[src + i]!;
      const left = i >= bpp ? out[dst + i - bpp]! : 0;
      const up = r > 0 ? out[dst - rowLength + i]! : 0;
      const upLeft = r > 0 && i >= bpp ? out[dst - rowLength + i - bpp]! : 0;
      let v = raw;
      if (type === 1) v = raw + left;
      else if (type === 2) v = raw + up;
      else if (type === 3) v = raw + ((left + up) >> 1);
      else if (type === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        v = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      }
      out[dst + i] = v & 0xff;
    }
  }
  return out;
}
