/**
 * The spreadsheet pair of `envelopes sample --csv` and `--template`: a CSV of
 * recipients and the envelope template its rows fill in, so that an installed
 * sign-cli (no examples/ directory) can try a bulk create from a spreadsheet.
 * The same as examples/recipients.csv and examples/template.json (a test keeps them equal).
 */
export const SAMPLE_CSV = [
  'contract_id,signer_name,signer_email,signer_phone,channel,witness_name,witness_phone,days',
  'EMP-2027-0001,Layla Haddad,layla.haddad@example.com,,email,,,14',
  'EMP-2027-0002,عمر خليل,,+971501234567,whatsapp,,,14',
  'EMP-2027-0003,"Haddad, Rami",rami.haddad@example.com,,email,سارة يوسف,+971501234599,30',
  'EMP-2027-0004,مريم العلي,maryam.alali@example.com,,email,,,7',
  '',
].join('\n');

export const SAMPLE_TEMPLATE = `{
  "title": "Employment contract {{contract_id}}",
  "contract_id": "{{contract_id}}",
  "document": { "template_id": "tpl_employment", "version": 2 },
  "signers": [
    { "name": "{{signer_name}}", "email": "{{signer_email}}", "phone": "{{signer_phone}}", "channel": "{{channel}}" },
    { "name": "{{witness_name}}", "phone": "{{witness_phone}}", "channel": "whatsapp" },
    { "name": "Nadia Saleh (HR)", "email": "hr@example.com", "channel": "email" }
  ],
  "signature_level": "advanced",
  "expires_in_days": "{{days}}",
  "locale": "ar"
}
`;
