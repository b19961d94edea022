/** Where the sandbox keeps its state when no --data-dir is given. */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$SIGN_SANDBOX_DIR`, else `$XDG_DATA_HOME/sign-cli/sandbox`, else `~/.local/share/sign-cli/sandbox`. */
export function defaultSandboxDir(env: NodeJS.ProcessEnv): string {
  if (env.SIGN_SANDBOX_DIR) return env.SIGN_SANDBOX_DIR;
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'sign-cli', 'sandbox');
}
