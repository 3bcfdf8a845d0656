import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IsOptional } from 'class-validator';
import { loadConfig } from './load-config';
import { launcherDataDir, readLauncherSettings, withLauncherSettings, writeLauncherSettings } from './launcher-settings';
import { IsAes256Key, IsPostgresUrl } from './validators';

class CliSettings {
  @IsPostgresUrl()
  LEDGER_DATABASE_URL: string;

  @IsOptional()
  @IsAes256Key()
  LEDGER_SECRET_KEY?: string;
}

describe('the launcher settings file', () => {
  let dir: string;
  const key = Buffer.alloc(32, 3).toString('base64');
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'launcher-settings-'));
    writeLauncherSettings(dir, { settings: { LEDGER_DATABASE_URL: 'postgres://u@127.0.0.1:5488/bursar_ledger' }, secrets: ['LEDGER_SECRET_KEY'] });
    await writeFile(path.join(dir, 'secrets.json'), JSON.stringify({ LEDGER_SECRET_KEY: key, CONTROL_SECRET_KEY: 'not named' }));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('is written readable by its owner only', async () => {
    expect((await stat(path.join(dir, 'settings.json'))).mode & 0o777).toBe(0o600);
  });

  it('completes a missing environment, taking from secrets.json only the keys it names', () => {
    expect(readLauncherSettings(dir)).toEqual({ LEDGER_DATABASE_URL: 'postgres://u@127.0.0.1:5488/bursar_ledger', LEDGER_SECRET_KEY: key });
    const settings = loadConfig(CliSettings, withLauncherSettings({ BURSAR_DATA_DIR: dir }));
    expect(settings).toMatchObject({ LEDGER_DATABASE_URL: 'postgres://u@127.0.0.1:5488/bursar_ledger', LEDGER_SECRET_KEY: key });
  });

  it('loses to any variable set in the environment; an empty one counts as unset', () => {
    const env = { BURSAR_DATA_DIR: dir, LEDGER_DATABASE_URL: 'postgres://other@db:5432/x', LEDGER_SECRET_KEY: '' };
    expect(loadConfig(CliSettings, withLauncherSettings(env))).toMatchObject({ LEDGER_DATABASE_URL: 'postgres://other@db:5432/x', LEDGER_SECRET_KEY: key });
  });

  it('feeds the same validation: a bad value from the file is refused like one from the environment', async () => {
    writeLauncherSettings(dir, { settings: { LEDGER_DATABASE_URL: 'mysql://nope' }, secrets: [] });
    expect(() => loadConfig(CliSettings, withLauncherSettings({ BURSAR_DATA_DIR: dir }))).toThrow('LEDGER_DATABASE_URL must be a postgres:// URL');
  });

  it('adds nothing where the launcher never ran, or wrote something unreadable', async () => {
    expect(readLauncherSettings(path.join(dir, 'missing'))).toEqual({});
    await writeFile(path.join(dir, 'settings.json'), '{not json');
    expect(readLauncherSettings(dir)).toEqual({});
  });

  it('lives in BURSAR_DATA_DIR, else in .data at the workspace root', () => {
    expect(launcherDataDir({ BURSAR_DATA_DIR: 'rel/dir' })).toBe(path.resolve('rel/dir'));
    expect(launcherDataDir({})).toBe(path.resolve(__dirname, '../../../../.data'));
  });
});
