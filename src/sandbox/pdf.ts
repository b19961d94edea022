/**
 * The signed copy: a small, valid PDF 1.4 written by hand (text only, the
 * standard Helvetica fonts, no dependency). Text outside Windows-1252 (for
 * example Arabic names) cannot be shown by the standard fonts and is printed
 * as "?"; the JSON API keeps the exact values.
 */

export interface PdfLine {
  text: string;
  bold?: boolean;
  size?: number;
  /** Extra space above the line, in points. */
  gap?: number;
}

const PAGE_WIDTH = 595; // A4 in points
const PAGE_HEIGHT = 842;
const MARGIN = 56;

/** Windows-1252 code points above 0x7f that differ from Latin-1. */
const CP1252: Record<string, number> = {
  '€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87, 'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a,
  '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97,
  '˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
};

/** A PDF literal string in WinAnsiEncoding, escaped. */
function pdfString(text: string): Buffer {
  const bytes: number[] = [0x28];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    let byte = CP1252[ch] ?? (code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : 0x3f);
    if (byte < 0x20) byte = 0x20;
    if (byte === 0x28 || byte === 0x29 || byte === 0x5c) bytes.push(0x5c);
    bytes.push(byte);
  }
  bytes.push(0x29);
  return Buffer.from(bytes);
}

/** Splits long lines so they fit the page (Helvetica averages about half an em per character). */
function wrap(lines: PdfLine[]): PdfLine[] {
  const out: PdfLine[] = [];
  for (const line of lines) {
    const size = line.size ?? 10;
    const perLine = Math.floor((PAGE_WIDTH - 2 * MARGIN) / (size * 0.52));
    let rest = line.text;
    let first = true;
    do {
      let cut = rest.length <= perLine ? rest.length : rest.lastIndexOf(' ', perLine);
      if (cut <= 0) cut = Math.min(perLine, rest.length);
      out.push({ ...line, text: rest.slice(0, cut), gap: first ? line.gap : 0 });
      rest = rest.slice(cut).trimStart();
      first = false;
    } while (rest.length > 0);
  }
  return out;
}

function paginate(lines: PdfLine[]): Buffer[] {
  const pages: Buffer[] = [];
  let parts: Buffer[] = [];
  let y = PAGE_HEIGHT - MARGIN;
  const flush = () => {
    pages.push(Buffer.concat(parts));
    parts = [];
    y = PAGE_HEIGHT - MARGIN;
  };
  for (const line of wrap(lines)) {
    const size = line.size ?? 10;
    const advance = size * 1.4 + (line.gap ?? 0);
    if (y - advance < MARGIN && parts.length > 0) flush();
    y -= advance;
    parts.push(Buffer.from(`BT /${line.bold ? 'F2' : 'F1'} ${size} Tf ${MARGIN} ${y.toFixed(1)} Td `, 'latin1'), pdfString(line.text), Buffer.from(' Tj ET\n', 'latin1'));
  }
  flush();
  return pages;
}

export function renderPdf(lines: PdfLine[], info: { title: string; createdAt: Date }): Buffer {
  const pages = paginate(lines);
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body) ;
  const firstPage = 6;
  const kids = pages.map((_, i) => `${firstPage + i * 2} 0 R`).join(' ');
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const date = info.createdAt.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  add(Buffer.concat([Buffer.from('<< /Title ', 'latin1'), pdfString(info.title), Buffer.from(` /Producer (sign-cli sandbox) /CreationDate (D:${date}Z) >>`, 'latin1')]));
  pages.forEach((content, i) => {
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${firstPage + i * 2 + 1} 0 R >>`);
    add(Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]));
  });

  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    chunks.push(chunk);
    offset += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(chunks);
}
