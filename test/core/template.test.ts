/** Envelope templates: placeholders, the schema's types for whole placeholders, empty cells left out. */
import { describe, expect, it } from 'vitest';
import { fieldKind, renderTemplate, templatePlaceholders } from '../../src/core/envelope/template.js';

const TEMPLATE = {
  title: 'Contract {{id}} for {{name}}',
  contract_id: '{{id}}',
  document: { template_id: 'tpl_x', version: '{{version}}' },
  signers: [
    { name: '{{name}}', email: '{{email}}', phone: '{{phone}}', channel: '{{channel}}', order: '{{order}}' },
    { name: '{{second_name}}', phone: '{{second_phone}}', channel: 'whatsapp' },
    { name: 'HR', email: 'hr@example.com', channel: 'email' },
  ],
  sequential: '{{sequential}}',
  expires_in_days: '{{days}}',
};

describe('envelope templates', () => {
  it('lists the placeholders once each, in order', () => {
    expect(templatePlaceholders(TEMPLATE)).toEqual([
      'id',
      'name',
      'version',
      'email',
      'phone',
      'channel',
      'order',
      'second_name',
      'second_phone',
      'sequential',
      'days',
    ]);
  });

  it('knows the type the schema gives each field', () => {
    expect(fieldKind(['expires_in_days'])).toBe('number');
    expect(fieldKind(['sequential'])).toBe('boolean');
    expect(fieldKind(['document', 'version'])).toBe('number');
    expect(fieldKind(['signers', 0, 'order'])).toBe('number');
    expect(fieldKind(['signers', 3, 'phone'])).toBe('string');
    expect(fieldKind(['title'])).toBe('string');
    expect(fieldKind(['no_such_field'])).toBe('other');
    expect(fieldKind(['signers'])).toBe('other');
  });

  it('renders a row: typed whole placeholders, text inside longer strings, empty cells and empty signers left out', () => {
    const row = {
      id: 'C-1',
      name: 'عمر خليل',
      version: '3',
      email: '',
      phone: '+971501234567',
      channel: 'whatsapp',
      order: '1',
      second_name: '',
      second_phone: '',
      sequential: 'TRUE',
      days: '14',
    };
    expect(renderTemplate(TEMPLATE, row)).toEqual({
      title: 'Contract C-1 for عمر خليل',
      contract_id: 'C-1',
      document: { template_id: 'tpl_x', version: 3 },
      signers: [
        { name: 'عمر خليل', phone: '+971501234567', channel: 'whatsapp', order: 1 },
        { name: 'HR', email: 'hr@example.com', channel: 'email' },
      ],
      sequential: true,
      expires_in_days: 14,
    });
  });

  it("keeps the row's own empty signers when the row filled none, so validation names them (never an envelope for the fixed signer alone)", () => {
    const empty = Object.fromEntries(templatePlaceholders(TEMPLATE).map((name) => [name, ''])) as Record<
      string,
      string
    >;
    const rendered = renderTemplate(TEMPLATE, { ...empty, id: 'C-3' }) as { signers: unknown[] };
    expect(rendered.signers).toEqual([
      {},
      { channel: 'whatsapp' },
      { name: 'HR', email: 'hr@example.com', channel: 'email' },
    ]);
  });

  it("keeps a cell that is not of the field's type as text, for validation to name", () => {
    const rendered = renderTemplate(TEMPLATE, {
      id: 'C-2',
      name: 'A',
      version: 'v3',
      email: 'a@example.com',
      phone: '',
      channel: 'email',
      order: '1',
      second_name: 'B',
      second_phone: '+971500000000',
      sequential: 'yes',
      days: '14 days',
    }) as Record<string, unknown>;
    expect(rendered.expires_in_days).toBe('14 days');
    expect(rendered.sequential).toBe('yes');
    expect((rendered.document as Record<string, unknown>).version).toBe('v3');
    expect((rendered.signers as unknown[]).length).toBe(3);
  });
});
