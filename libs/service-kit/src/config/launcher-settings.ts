import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What `pnpm start` writes into its data folder so the operator CLIs beside it need no set-up:
 * `settings.json` holds the values it runs the stack with (database URLs, REDIS_URL, ports, URLs);
 * secret keys stay in `secrets.json` alone, and `secrets` names those read from there.
 */
export interface LauncherSettingsFile {
  settings: Record<string, string>;
  secrets: string[];
}

export const LAUNCHER_SETTINGS_FILE = 'settings.json';
export const LAUNCHER_SECRETS_FILE = 'secrets.json';

/** The workspace root: the nearest folder above `from` holding pnpm-workspace.yaml (the same from sources and from dist/). */
function workspaceRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/** The launcher's data folder: BURSAR_DATA_DIR, else `.data` at the workspace root. */
export function launcherDataDir(env: Record<string, string | undefined>): string {
  return env.BURSAR_DATA_DIR ? path.resolve(env.BURSAR_DATA_DIR) : path.join(workspaceRoot(__dirname), '.data');
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Writes settings.json (mode 600: it holds database URLs with passwords). */
export function writeLauncherSettings(dataDir: string, file: LauncherSettingsFile): string {
  mkdirSync(dataDir, { recursive: true });
  const target = path.join(dataDir, LAUNCHER_SETTINGS_FILE);
  writeFileSync(target, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  // `mode` applies only when the file is created; an older copy may have been readable by others.
  chmodSync(target, 0o600);
  return target;
}

/**
 * The values a running (or last) `pnpm start` used, read from its data folder; empty when it never
 * ran there. Only string values are taken, and secrets only those the settings file names.
 */
export function readLauncherSettings(dataDir: string): Record<string, string> {
  const file = readJson(path.join(dataDir, LAUNCHER_SETTINGS_FILE)) as Partial<LauncherSettingsFile> | undefined;
  if (!file || typeof file.settings !== 'object' || file.settings === null) return {};
  const strings = (o: object) => Object.entries(o).filter((e): e is [string, string] => typeof e[1] === 'string');
  const stored = (readJson(path.join(dataDir, LAUNCHER_SECRETS_FILE)) ?? {}) as Record<string, unknown>;
  const names = new Set(Array.isArray(file.secrets) ? file.secrets : []);
  return Object.fromEntries([...strings(file.settings), ...strings(stored).filter(([name]) => names.has(name))]);
}

/**
 * The environment of an operator CLI, completed from the launcher's settings: a variable set (non-empty)
 * in `env` always wins; one missing is taken from the settings file. The result feeds loadConfig, so
 * both sources pass the same validation.
 */
export function withLauncherSettings(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  return { ...readLauncherSettings(launcherDataDir(env)), ...present };
}
