/** `sign-cli sandbox stop`: ends the sandbox running on a data dir (started with --detach or not). */
import type { Command } from 'commander';
import { ExitCode } from '../../exit-codes.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import type { CommandContext } from '../../context.js';
import { defaultSandboxDir } from './data-dir.js';
import { stopSandbox } from './detach.js';

export const doc: CommandDoc = {
  summary: 'stop the sandbox running on the data dir (--data-dir, else the default); its state is kept',
  details: [
    'It sends SIGTERM (a clean close) and waits until the sandbox has let go of its port and data dir. When none runs it says so, and exits 0. `--json` prints `{"stopped", "pid", "data_dir"}`.',
  ],
  examples: ['sign-cli sandbox --port 0 --detach --data-dir sbx', 'sign-cli sandbox stop --data-dir sbx'],
};

export function registerStop(sandbox: Command, action: Action): void {
  defineCommand(sandbox, 'stop', doc).action(action(stopCommand));
}

export async function stopCommand(ctx: CommandContext, flags: { dataDir?: string }): Promise<number> {
  const dataDir = flags.dataDir ?? defaultSandboxDir(ctx.env);
  const pid = await stopSandbox(dataDir, (ms) => ctx.io.clock.sleep(ms));
  if (ctx.output.json)
    ctx.output.jsonDocument({ stopped: pid !== undefined, pid: pid ?? null, data_dir: dataDir });
  else
    ctx.output.info(
      pid === undefined
        ? `no sandbox is running on ${dataDir}; nothing to stop`
        : `sandbox (pid ${pid}) stopped; its state is kept in ${dataDir}`,
    );
  return ExitCode.ok;
}
