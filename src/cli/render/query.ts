/**
 * `--query <expression>`: a JMESPath expression (the AWS and Azure CLIs'
 * convention) applied to the JSON a command prints, once per document or per
 * line for line-per-object outputs (as the AWS CLI's: applied to the finished
 * output, never inside commands). The evaluator is the JMESPath Community's
 * TypeScript implementation, loaded only when --query is given.
 */
import { SignError, UsageError } from '../../core/errors.js';
import { oneLine } from '../../core/envelope/text.js';

export type JsonQuery = (value: unknown) => unknown;

const HINT =
  'JMESPath, as in the AWS CLI: envelope.id, data[].id, [id, status], length(signers); see https://jmespath.org/tutorial.html';

/** Compiles the expression before anything runs: a bad one is exit 2 with nothing sent. */
export async function compileQuery(expression: string): Promise<JsonQuery> {
  const { compile, TreeInterpreter } = await import('@jmespath-community/jmespath');
  let ast: ReturnType<typeof compile>;
  try {
    if (expression.trim() === '') throw new Error('the expression is empty');
    ast = compile(expression);
  } catch (error) {
    throw new UsageError(
      `--query ${JSON.stringify(expression)} is not a valid JMESPath expression: ${oneLine((error as Error).message)}`,
      { hint: HINT },
    );
  }
  return (value) => {
    try {
      return TreeInterpreter.search(ast, value as Parameters<typeof TreeInterpreter.search>[1]);
    } catch (error) {
      // A type error of the expression met by real data (length() of a number…): the command itself ran.
      throw new SignError(
        `--query ${JSON.stringify(expression)} could not be applied to the output: ${oneLine((error as Error).message)}`,
        { hint: HINT },
      );
    }
  };
}
