/**
 * A `webhooks test` scorecard as JUnit XML, the report CI dashboards read
 * (GitHub Actions test reporters, GitLab, Jenkins): one testsuite, one
 * testcase per check, a <failure> whose message says what came back, a
 * <skipped> for a check that does not apply. The shape is the one the
 * Jenkins/Ant JUnit schema gives; counts and times are attributes.
 */
import type { CheckResult, Scorecard } from '../../core/receiver-test/run.js';

/** Text as XML 1.0 allows it: the five special characters escaped, other controls written as \uXXXX. */
export function xmlText(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function testcase(check: CheckResult): string[] {
  const open = `    <testcase name="${xmlText(check.name)}" classname="webhooks-test.${check.id}" time="${seconds(check.ms)}">`;
  if (check.verdict === 'skip')
    return [
      open,
      `      <skipped message="${xmlText(check.got.replace(/^skipped: /, ''))}"/>`,
      '    </testcase>',
    ];
  if (check.verdict === 'pass') return [`${open.slice(0, -1)}/>`];
  const detail = [
    `sent: ${check.sent}`,
    `expected: ${check.expected}`,
    `got: ${check.got}`,
    `why it matters: ${check.why}`,
    ...check.attempts.map(
      (a) =>
        `  ${a.label}: ${a.status ?? (a.timedOut ? 'no answer in time' : (a.error ?? 'no answer'))} (${a.ms} ms)`,
    ),
  ].join('\n');
  return [
    open,
    `      <failure message="${xmlText(`expected ${check.expected}; got ${check.got}`)}" type="${check.id}">${xmlText(detail)}</failure>`,
    '    </testcase>',
  ];
}

interface Suite {
  url: string;
  scheme?: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  ms: number;
  at: Date;
  hostname: string;
  cases: string[];
}

/** The one testsuite, in its testsuites, with the counts on both as dashboards read either. */
function document(suite: Suite): string {
  const counts = `tests="${suite.tests}" failures="${suite.failures}" errors="${suite.errors}" skipped="${suite.skipped}" time="${seconds(suite.ms)}"`;
  const properties = [
    `      <property name="url" value="${xmlText(suite.url)}"/>`,
    ...(suite.scheme ? [`      <property name="scheme" value="${xmlText(suite.scheme)}"/>`] : []),
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="sign-cli webhooks test" ${counts}>`,
    `  <testsuite name="webhook receiver ${xmlText(suite.url)}" ${counts} id="0" package="sign-cli" timestamp="${suite.at.toISOString().slice(0, 19)}" hostname="${xmlText(suite.hostname)}">`,
    '    <properties>',
    ...properties,
    '    </properties>',
    ...suite.cases,
    '    <system-out/>',
    '    <system-err/>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function junitXml(card: Scorecard, at: Date, hostname: string): string {
  return document({
    url: card.url,
    scheme: card.scheme,
    tests: card.checks.length,
    failures: card.failed,
    errors: 0,
    skipped: card.skipped,
    ms: card.ms,
    at,
    hostname,
    cases: card.checks.flatMap(testcase),
  });
}

/** The report of a run that found no receiver: one testcase in error, so CI shows why nothing was graded. */
export function junitUnreachable(url: string, message: string, at: Date, hostname: string): string {
  return document({
    url,
    tests: 1,
    failures: 0,
    errors: 1,
    skipped: 0,
    ms: 0,
    at,
    hostname,
    cases: [
      '    <testcase name="reaches the receiver" classname="webhooks-test.reach" time="0.000">',
      `      <error message="${xmlText(message)}" type="unreachable"/>`,
      '    </testcase>',
    ],
  });
}
