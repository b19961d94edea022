/**
 * Opening a link in the desktop's browser, as `gh browse` does: the decision
 * (browserFor: which program, or why none) is a pure function of the
 * environment, the platform and whether stdout is a terminal, so it is tested
 * as a table; the launch itself (browser-launch.ts) is the Io's `openBrowser`,
 * so a test never starts a program, and a command that opens nothing never
 * loads child_process.
 */

/** A program to start with the link among its arguments. */
export interface BrowserLaunch {
  command: string;
  args: string[];
  /**
   * `$BROWSER`, which may be a terminal browser (w3m, lynx): it gets the terminal and is waited
   * for, as gh does. The desktop's openers hand the link over and return at once.
   */
  attached: boolean;
  /** cmd.exe's own quoting: the arguments go to it as written. */
  verbatim?: boolean;
}

/** Why no browser is opened. */
export type NoBrowser =
  /** --no-browser */
  | 'not_asked'
  /** stdout is a pipe or a file: the link is the output, for a script. */
  | 'not_a_terminal'
  | 'ci'
  /** Linux and the other Unixes without DISPLAY or WAYLAND_DISPLAY (an SSH session, a console). */
  | 'no_display';

export type BrowserDecision = { launch: BrowserLaunch } | { none: NoBrowser };

export interface BrowserContext {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  stdoutIsTTY: boolean;
  /** false with --no-browser. */
  wanted: boolean;
}

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** CI as the prompts read it (context.ts canPrompt): set, and not false or 0. */
const inCi = (env: NodeJS.ProcessEnv): boolean => set(env.CI) && env.CI !== 'false' && env.CI !== '0';

/**
 * Which program opens `url` here, or why none does: never for a pipe or in CI; `$BROWSER`
 * when set (`%s` stands for the link, else it is appended); else `open` on macOS, `start` on
 * Windows, and `xdg-open` elsewhere only when there is a display to open it on.
 */
export function browserFor(url: string, context: BrowserContext): BrowserDecision {
  const { env, platform } = context;
  if (!context.wanted) return { none: 'not_asked' };
  if (!context.stdoutIsTTY) return { none: 'not_a_terminal' };
  if (inCi(env)) return { none: 'ci' };
  if (set(env.BROWSER)) {
    const words = env.BROWSER.trim().split(/\s+/);
    const args = words.slice(1).map((word) => word.replaceAll('%s', url));
    if (!words.some((word) => word.includes('%s'))) args.push(url);
    const command = words[0]!.replaceAll('%s', url);
    return { launch: { command, args, attached: true } };
  }
  if (platform === 'darwin') return { launch: { command: 'open', args: [url], attached: false } };
  if (platform === 'win32')
    // `start` is cmd's own; its first quoted argument is a window title, hence the empty one. The
    // command line is quoted whole, as Node quotes one for a shell (/s strips the outer quotes).
    return {
      launch: {
        command: 'cmd',
        args: ['/d', '/s', '/c', `"start "" "${url}""`],
        attached: false,
        verbatim: true,
      },
    };
  if (!set(env.DISPLAY) && !set(env.WAYLAND_DISPLAY)) return { none: 'no_display' };
  return { launch: { command: 'xdg-open', args: [url], attached: false } };
}
