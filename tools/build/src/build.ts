import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { publishBuild } from '@bursar/dev-infra';

/*
 * `pnpm build`: swc compiles apps/, libs/ and tools/ into dist/, which a running stack loads from,
 * and copies the .sql files (migrations read them next to their compiled code).
 * The operator CLIs and `pnpm start` build first, often while a stack runs, so the build never
 * writes into dist/ in place: swc writes a staging folder, then each changed file is swapped in by
 * one rename (publishBuild). An unchanged build leaves dist/ as it was; two builds at once are safe.
 */
const root = path.resolve(__dirname, '../../..');
// A sibling of dist/ at the same depth, so the source maps' relative paths come out byte-identical.
const staging = mkdtempSync(path.join(root, '.dist-staging-'));
try {
  execFileSync(
    path.join(root, 'node_modules/.bin/swc'),
    [
      'apps', 'libs', 'tools', '--config-file', '.swcrc', '-d', staging, '--copy-files', '--only', '**/*.ts,**/*.sql',
      '--ignore', 'apps/console/**,**/*.spec.ts,**/*.e2e-spec.ts,**/test/**',
      // Errors only: the operator CLIs build first, and their stderr is for their JSON errors.
      '--quiet',
    ],
    { cwd: root, stdio: 'inherit' },
  );
  publishBuild(staging, path.join(root, 'dist'));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
