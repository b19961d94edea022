/**
 * The documents signers read and sign: a template chosen by the envelope's `document`
 * (`template_id` and `version`), filled from the envelope, in one of its languages. The
 * sandbox holds an office lease and a supplier agreement; `sandbox --templates <dir>` adds an
 * integrator's own, one file per version (`<template_id>.v<version>.txt`, template-format.ts).
 * A template the sandbox does not hold gets a stand-in page that says so.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { EnvelopeRecord } from '../store/records.js';
import { humanDay, humanList, type Language } from './humanise.js';
import { OFFICE_LEASE } from './office-lease.js';
import { SUPPLIER_AGREEMENT } from './supplier-agreement.js';
import { TemplateError, fillText, parseTemplate, type Block, type TemplateTexts } from './template-format.js';

/** The built-in templates by id; each serves every version. */
const BUILT_IN: ReadonlyMap<string, TemplateTexts> = new Map([
  ['tpl_office_lease', parseTemplate(OFFICE_LEASE, 'office lease')],
  ['tpl_lease_renewal', parseTemplate(OFFICE_LEASE, 'office lease')],
  ['tpl_supplier_agreement', parseTemplate(SUPPLIER_AGREEMENT, 'supplier agreement')],
]);

/** What a signer reads when the sandbox holds no text for the envelope's template. */
const STAND_IN = parseTemplate(
  `
[en]
# {{title}}
The sandbox holds no text for the template {{template}}, version {{version}}, so this page stands in for the document the service would show; the signed copy carries it too. Start the sandbox with --templates <dir> to show your own.

## The parties
This document is to be signed by {{parties}}.

## Signatures
By signing electronically below, each party agrees to the document named above.

[ar]
# {{title}}
لا تحتوي البيئة التجريبية على نص للنموذج {{template}}، الإصدار {{version}}، لذا تحل هذه الصفحة محل المستند الذي كانت الخدمة ستعرضه، وتحملها النسخة الموقّعة أيضاً. شغّل البيئة التجريبية مع ‎--templates لعرض نماذجك.

## الأطراف
يوقّع هذا المستند {{parties}}.

## التوقيع
بالتوقيع إلكترونياً أدناه يوافق كل طرف على المستند المذكور أعلاه.
`,
  'stand-in',
);

/** A template's file name: its id and version. */
const FILE_NAME = /^(.+)\.v([1-9]\d{0,8})\.txt$/;
/** Bounds on a directory of templates: no template is this long, and a wrong directory is found out. */
const MAX_FILE_BYTES = 256 * 1024;
const MAX_FILES = 1000;

/** A document as filled for one envelope, in one language. */
export interface FilledDocument {
  /** Its language (a two-letter code) and direction. */
  lang: string;
  dir: 'ltr' | 'rtl';
  /** The languages the template has, so a page can offer the others. */
  languages: string[];
  /** Its blocks, the first its heading, every placeholder filled in. */
  blocks: Block[];
  /** Where its text comes from: a built-in template, a file of `--templates`, or the stand-in. */
  origin: 'built-in' | 'file' | 'stand-in';
}

const RTL_LANGUAGES: ReadonlySet<string> = new Set(['ar', 'fa', 'he', 'ur']);

const signersInOrder = (envelope: EnvelopeRecord) =>
  [...envelope.signers].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));

export class Templates {
  private constructor(private readonly files: ReadonlyMap<string, TemplateTexts>) {}

  /** The built-in templates alone. */
  static builtIn(): Templates {
    return new Templates(new Map());
  }

  /**
   * The built-in templates and those of `dir`: every `*.txt` in it, each named
   * `<template_id>.v<version>.txt`. A file that cannot be used is a TemplateError naming it.
   */
  static fromDirectory(dir: string): Templates {
    let names: string[];
    try {
      names = readdirSync(dir).filter((name) => name.endsWith('.txt'));
    } catch (error) {
      throw new TemplateError(
        dir,
        `cannot read the templates directory (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    if (names.length > MAX_FILES)
      throw new TemplateError(dir, `more than ${MAX_FILES} templates: is this the right directory?`);
    const files = new Map<string, TemplateTexts>();
    for (const name of names.sort()) {
      const path = join(dir, name);
      const found = FILE_NAME.exec(name);
      if (!found)
        throw new TemplateError(
          path,
          'name a template <template_id>.v<version>.txt, such as tpl_lease.v3.txt',
        );
      if (statSync(path).size > MAX_FILE_BYTES)
        throw new TemplateError(path, `longer than ${MAX_FILE_BYTES / 1024} KB`);
      const text = readFileSync(path);
      const decoded = new TextDecoder('utf-8', { fatal: false }).decode(text);
      if (decoded.includes('\ufffd')) throw new TemplateError(path, 'not UTF-8 text: save it as UTF-8');
      files.set(key(found[1]!, Number(found[2])), parseTemplate(decoded, path));
    }
    return new Templates(files);
  }

  /** How many templates came from files. */
  get loaded(): number {
    return this.files.size;
  }

  private textsOf(envelope: EnvelopeRecord): { texts: TemplateTexts; origin: FilledDocument['origin'] } {
    const { id, version } = documentOf(envelope);
    const file = this.files.get(key(id, version));
    if (file) return { texts: file, origin: 'file' };
    const builtIn = BUILT_IN.get(id);
    return builtIn ? { texts: builtIn, origin: 'built-in' } : { texts: STAND_IN, origin: 'stand-in' };
  }

  /**
   * The envelope's document in `lang` when its template has it, else in the envelope's locale,
   * else English, else the template's first language.
   */
  document(envelope: EnvelopeRecord, lang?: string): FilledDocument {
    const { texts, origin } = this.textsOf(envelope);
    const locale = typeof envelope.locale === 'string' ? envelope.locale : 'en';
    const chosen =
      [lang, locale, 'en'].find((l): l is string => l !== undefined && texts.has(l)) ?? [...texts.keys()][0]!;
    const fill = filler(envelope, chosen === 'ar' ? 'ar' : 'en');
    return {
      lang: chosen,
      dir: RTL_LANGUAGES.has(chosen) ? 'rtl' : 'ltr',
      languages: [...texts.keys()],
      blocks: texts.get(chosen)!.map((block) => ({ kind: block.kind, text: fillText(block.text, fill) })),
      origin,
    };
  }

  /** The language the signed copy is in: the envelope's locale's when the template has it. */
  signedLanguage(envelope: EnvelopeRecord): string {
    return this.document(envelope).lang;
  }
}

const key = (id: string, version: number): string => `${id}\u0000${version}`;

function documentOf(envelope: EnvelopeRecord): { id: string; version: number } {
  const document = (envelope.document ?? {}) as { template_id?: unknown; version?: unknown };
  return {
    id: typeof document.template_id === 'string' ? document.template_id : '',
    version: typeof document.version === 'number' ? document.version : 0,
  };
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.replace(/[\r\n]+/g, ' ') : undefined;

/** The value of each placeholder for this envelope, worded in `lang`. */
function filler(envelope: EnvelopeRecord, lang: Language): (name: string) => string {
  const names = signersInOrder(envelope).map((signer) => text(signer.name) ?? '—');
  const { id, version } = documentOf(envelope);
  return (name) => {
    const party = /^party\.(\d+)$/.exec(name);
    if (party) return names[Number(party[1]) - 1] ?? '—';
    switch (name) {
      case 'title':
        return text(envelope.title) ?? '—';
      case 'contract_id':
        return text(envelope.contract_id) ?? '—';
      case 'date':
        return humanDay(envelope.created_at, lang) ?? '—';
      case 'expiry':
        return humanDay(envelope.expires_at, lang) ?? (lang === 'ar' ? 'دون تاريخ انتهاء' : 'no expiry date');
      case 'parties':
        return humanList(names, lang);
      case 'template':
        return id || '—';
      case 'version':
        return String(version || '—');
      default:
        return envelope.id;
    }
  };
}
