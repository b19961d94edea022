/**
 * The envelope's shape as a zod schema (zod/mini): what `sign-cli mcp` publishes as the envelope's
 * JSON Schema and checks a tool's envelope argument with. The CLI and the library check the same
 * shape with schema.ts, which reports what this schema reports, message for message
 * (test/core/envelope-shape.test.ts holds the two equal): loading zod cost `validate` more
 * start-up than its own work. A rule changed here is changed there too; the test says so.
 */
import * as z from 'zod/mini';
import { EMAIL_RE, expected, isHttpUrl, LOCAL_LIMITS, MESSAGES, tooLong } from './schema.js';

const nonEmptyString = (what = 'a non-empty string') =>
  z
    .string({ error: expected(what) })
    .check(
      z.trim(),
      z.minLength(1, { error: MESSAGES.empty }),
      z.maxLength(LOCAL_LIMITS.string, { error: tooLong }),
    );

const positiveInteger = z
  .number({ error: expected('a positive integer') })
  .check(z.int({ error: MESSAGES.positiveInteger }), z.positive({ error: MESSAGES.positive }));

const httpUrl = z
  .string({ error: expected('an absolute http(s) URL') })
  .check(z.maxLength(LOCAL_LIMITS.string, { error: tooLong }), z.refine(isHttpUrl, { error: MESSAGES.url }));

export const signerSchema = z.looseObject(
  {
    name: nonEmptyString(),
    email: z.optional(
      z
        .string({ error: expected('an e-mail address') })
        .check(
          z.maxLength(LOCAL_LIMITS.string, { error: tooLong }),
          z.regex(EMAIL_RE, { error: MESSAGES.email }),
        ),
    ),
    // What a number may be is phone.ts's (libphonenumber, for its country): checked with the rules between fields (envelope.ts).
    phone: z.optional(
      z
        .string({ error: expected('a phone number in international form') })
        .check(z.maxLength(LOCAL_LIMITS.string, { error: tooLong })),
    ),
    order: z.optional(
      z
        .number({ error: expected('an integer from 1') })
        .check(z.int({ error: MESSAGES.order }), z.gte(1, { error: MESSAGES.order })),
    ),
    channel: nonEmptyString('a channel name such as "email" or "whatsapp"'),
    verification: z.optional(nonEmptyString('a verification method name')),
  },
  { error: expected('a signer object') },
);

export const envelopeSchema = z.looseObject(
  {
    title: nonEmptyString(),
    contract_id: z.optional(nonEmptyString()),
    document: z.looseObject(
      {
        template_id: nonEmptyString(),
        version: positiveInteger,
      },
      { error: expected('an object with template_id and version') },
    ),
    signers: z
      .array(signerSchema, { error: expected('an array of signer objects') })
      .check(
        z.minLength(1, { error: MESSAGES.noSigner }),
        z.maxLength(LOCAL_LIMITS.signers, { error: MESSAGES.tooManySigners }),
      ),
    sequential: z.optional(z.boolean({ error: expected('true or false') })),
    signature_level: z.optional(nonEmptyString('a signature level name')),
    expires_in_days: z.optional(positiveInteger),
    locale: z.optional(nonEmptyString('a language code such as "ar"')),
    webhook_url: z.optional(httpUrl),
  },
  { error: expected('a JSON object (an envelope)') },
);
