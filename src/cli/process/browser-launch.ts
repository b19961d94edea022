/**
 * The process's `openBrowser` (io.ts): starts the program browser.ts chose,
 * apart from the decision so that only a launch loads child_process.
 */
import { spawn } from 'node:child_process';
import type { BrowserLaunch } from './browser.js';

/** How long an opener (xdg-open, open, start) may take to hand the link over before it is taken to have. */
const HANDOVER_MS = 5_000;

/**
 * Starts the program; true when it ran and said yes (exit 0), false when it could not be
 * started or failed. Never throws: a browser that cannot be opened leaves the link printed.
 */
export function launchBrowser(launch: BrowserLaunch): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let child;
    try {
      child = spawn(launch.command, launch.args, {
        stdio: launch.attached ? 'inherit' : 'ignore',
        detached: !launch.attached,
        windowsVerbatimArguments: launch.verbatim === true,
        windowsHide: true,
      });
    } catch {
      resolve(false);
      return;
    }
    const timer = launch.attached
      ? undefined
      : setTimeout(() => {
          // Still running: it has the link (some openers stay until the browser has it); let it be.
          child.unref();
          resolve(true);
        }, HANDOVER_MS);
    timer?.unref();
    child.once('error', () => {
      if (timer) clearTimeout(timer);
      resolve(false);
    });
    child.once('exit', (code) => {
      if (timer) clearTimeout(timer);
      resolve(code === 0);
    });
  });
}
