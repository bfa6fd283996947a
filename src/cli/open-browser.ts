// Opens a URL in the person's browser, as `gh browse` does: $BROWSER when set (`none` means
// print only), else the system's opener (open on macOS, start on Windows, xdg-open elsewhere).
// The `open` package does the same but ships a copy of xdg-open it runs from its own folder,
// which a one-file bundle cannot carry; the few lines here are the part contentlib needs.
import { spawn } from 'node:child_process';

export type BrowserLaunch = { command: string; args: string[] } | 'none';

/** What would open `url` here; `BROWSER` may hold arguments and a %s for where the URL goes. */
export function browserLaunch(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): BrowserLaunch {
  const chosen = env.BROWSER?.trim();
  if (chosen) {
    if (chosen.toLowerCase() === 'none') return 'none';
    const [command, ...args] = chosen.split(/\s+/) as [string, ...string[]];
    const withUrl = args.some((a) => a.includes('%s')) ? args.map((a) => a.replaceAll('%s', url)) : [...args, url];
    return { command, args: withUrl };
  }
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // start's first quoted argument is a window title; the URL follows it.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url.replaceAll('&', '^&')] };
  return { command: 'xdg-open', args: [url] };
}

/** Starts the browser and lets it run on its own; resolves to why it could not, or undefined. */
export function openBrowser(
  url: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  const launch = browserLaunch(url, env, platform);
  if (launch === 'none') return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const child = spawn(launch.command, launch.args, { detached: true, stdio: 'ignore' });
    child.once('error', (err: NodeJS.ErrnoException) =>
      resolve(err.code === 'ENOENT' ? `${launch.command} was not found` : err.message),
    );
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}
