// Where contentlib keeps its files. CONTENTLIB_HOME puts all of them under one folder (tests use
// a temp dir); otherwise the XDG base directories, as most Linux tools do.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface Paths {
  /** Profiles and the embedded library's key (conf's file lives here, mode 0600). */
  config: string;
  /** The embedded library: database and objects. */
  data: string;
  /** Upload journals: what was uploaded already, for re-runs. */
  state: string;
}

export function resolvePaths(env: NodeJS.ProcessEnv = process.env): Paths {
  const home = env.CONTENTLIB_HOME;
  if (home) {
    const root = resolve(home);
    return { config: join(root, 'config'), data: join(root, 'data'), state: join(root, 'state') };
  }
  const user = homedir();
  const xdg = (name: string, fallback: string) => (env[name] ? resolve(env[name]!) : join(user, fallback));
  return {
    config: join(xdg('XDG_CONFIG_HOME', '.config'), 'contentlib'),
    data: join(xdg('XDG_DATA_HOME', '.local/share'), 'contentlib'),
    state: join(xdg('XDG_STATE_HOME', '.local/state'), 'contentlib'),
  };
}
