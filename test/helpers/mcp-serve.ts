/** `sign-cli mcp` in process over JSON-RPC lines: the requests on stdin (which then ends), the answers by id. */
import { runCommand } from './in-process.js';

export interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

const line = (id: number, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** Runs the server under `root` over these tool calls (made at once, as a client may) and returns their answers in order. */
export async function callTools(
  root: string,
  calls: { name: string; arguments: Record<string, unknown> }[],
  env: Record<string, string>,
): Promise<ToolAnswer[]> {
  const input = [
    line(0, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '1' },
    }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    ...calls.map((call, i) => line(i + 1, 'tools/call', call)),
  ];
  const result = await runCommand(['mcp', '--root', root], { input: `${input.join('\n')}\n`, env });
  const answers = new Map<number, ToolAnswer>();
  for (const text of result.stdout.split('\n').filter(Boolean)) {
    const message = JSON.parse(text) as { id?: number; result?: ToolAnswer; error?: unknown };
    if (typeof message.id === 'number' && message.id > 0)
      answers.set(
        message.id,
        message.result ?? { isError: true, content: [{ type: 'text', text: JSON.stringify(message.error) }] },
      );
  }
  return calls.map(
    (_, i) => answers.get(i + 1) ?? { isError: true, content: [{ type: 'text', text: 'no answer' }] },
  );
}

export const answerText = (answer: ToolAnswer): string => answer.content.map((c) => c.text ?? '').join('\n');
