/**
 * A prompter of the test's own (src/cli/process/prompter.ts), given to a command run in process
 * with `runCommand(args, { tty: true, prompter })`: it answers from a script, in order, and
 * keeps every question it was asked. CTRL_C answers as a person pressing Ctrl-C would (inquirer's
 * ExitPromptError).
 */
import type { Prompter } from '../../src/cli/process/prompter.js';

export const CTRL_C = Symbol('Ctrl-C');
export type Answer = string | boolean | typeof CTRL_C;

export interface Question {
  kind: 'input' | 'password' | 'select' | 'confirm';
  message: string;
  default?: string | boolean | undefined;
  mask?: string | undefined;
}

export interface FakePrompter extends Prompter {
  /** What was asked, in order. */
  readonly asked: Question[];
}

export function fakePrompter(answers: Answer[] = []): FakePrompter {
  const queue = [...answers];
  const asked: Question[] = [];
  const next = (question: Question): string | boolean => {
    asked.push(question);
    if (queue.length === 0) throw new Error(`no scripted answer for "${question.message}"`);
    const answer = queue.shift()!;
    if (answer === CTRL_C)
      throw Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' });
    return answer;
  };
  return {
    asked,
    async input(config) {
      let answer = String(next({ kind: 'input', message: config.message, default: config.default }));
      if (answer === '' && config.default !== undefined) answer = config.default;
      const verdict = await config.validate?.(answer);
      if (verdict !== undefined && verdict !== true)
        throw new Error(`rejected ${JSON.stringify(answer)} for "${config.message}": ${String(verdict)}`);
      return answer;
    },
    async password(config) {
      return String(next({ kind: 'password', message: config.message, mask: config.mask }));
    },
    async select<T extends string>(config: { message: string; choices: { value: T }[]; default?: T }) {
      const answer = String(next({ kind: 'select', message: config.message, default: config.default }));
      const choice = config.choices.find((c) => c.value === answer);
      if (!choice) throw new Error(`no choice ${answer} for "${config.message}"`);
      return choice.value;
    },
    async confirm(config) {
      const answer = next({ kind: 'confirm', message: config.message, default: config.default });
      if (typeof answer !== 'boolean')
        throw new Error(`"${config.message}" is answered yes or no, not ${answer}`);
      return answer;
    },
  };
}
