/**
 * Another process that swaps a directory for a link to somewhere else and
 * back, again and again, for as long as a test runs: the directory is renamed
 * aside (staying where it is, beside itself), a link to `elsewhere` takes its
 * name, then the link goes and the directory comes back. Each state is held
 * for a random fraction of a millisecond, so the swaps fall anywhere in what
 * runs meanwhile. stop() puts the directory back and says how many swaps there were.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const SCRIPT = `
const fs = require('node:fs');
const [dir, elsewhere, stopFile] = process.argv.slice(1);
const away = dir + '.away';
const pause = new Int32Array(new SharedArrayBuffer(4));
const hold = () => Atomics.wait(pause, 0, 0, Math.random() * 0.5);
let swaps = 0;
process.stdout.write('swapping\\n');
while (!fs.existsSync(stopFile)) {
  try {
    fs.renameSync(dir, away);
    fs.symlinkSync(elsewhere, dir);
    swaps++;
    hold();
    fs.unlinkSync(dir);
    fs.renameSync(away, dir);
    hold();
  } catch (error) {
    process.stderr.write(String(error) + '\\n');
    break;
  }
}
process.stdout.write(String(swaps) + '\\n');
`;

export interface Swapper {
  stop(): Promise<{ swaps: number; problems: string }>;
}

export async function startSwapper(dir: string, elsewhere: string): Promise<Swapper> {
  const stopFile = `${dir}.stop`;
  const child = spawn(process.execPath, ['-e', SCRIPT, dir, elsewhere, stopFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => stdout.includes('swapping') && resolve());
    child.on('close', () => reject(new Error(`the swapper ended before it started: ${stderr}`)));
  });
  return {
    async stop() {
      writeFileSync(stopFile, '');
      await exited;
      return { swaps: Number(stdout.split('\n').at(-2)), problems: stderr };
    },
  };
}
