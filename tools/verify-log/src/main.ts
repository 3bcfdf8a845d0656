import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyRemoteLog } from '@bursar/service-kit';

const USAGE = `pnpm verify-log --url <origin> [--checkpoint <file>] [--resource <id>]... [--save <file>]
                [--workspace <slug>] [--token <bearer>]

Checks a Bursar log from its API alone, without trusting the server: the latest checkpoint's signature
against the published keys, its consistency with the checkpoint saved in <file> (a checkpoint object as
GET .../checkpoints/latest answers it, or its token alone), and the inclusion of every entry of each
--resource in the latest tree. Prints one JSON report; exits 1 when anything fails to verify.
  --url        the ledger's (or control's) origin, e.g. http://localhost:3004
  --workspace  check control's audit log of this workspace instead of the ledger's books log
  --token      a bearer token that may read the log (default: the BURSAR_TOKEN environment variable)
  --save       write the latest checkpoint to this file, to check the next one against`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      checkpoint: { type: 'string' },
      resource: { type: 'string', multiple: true },
      save: { type: 'string' },
      workspace: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const token = values.token ?? process.env.BURSAR_TOKEN;
  if (!values.url || !token) {
    process.stderr.write(`${JSON.stringify({ error: { code: 'usage', message: '--url and a token (--token or BURSAR_TOKEN) are required', usage: USAGE } })}\n`);
    process.exitCode = 2;
    return;
  }
  const log = values.workspace
    ? { baseUrl: values.url, logPath: `/control/v1/workspaces/${encodeURIComponent(values.workspace)}/audit_log`, jwksPath: '/.well-known/jwks.json', token }
    : { baseUrl: values.url, logPath: '/ledger/v1/log', jwksPath: '/ledger/v1/log/jwks.json', token };
  const saved = values.checkpoint ? readFileSync(values.checkpoint, 'utf8').trim() : null;
  const savedToken = saved === null ? null : saved.startsWith('{') ? (JSON.parse(saved) as { token: string }).token : saved;
  const report = await verifyRemoteLog(log, savedToken, values.resource ?? []);
  const { latest_served: served, ...printed } = report;
  if (values.save && report.ok) writeFileSync(values.save, `${JSON.stringify(served)}\n`);
  process.stdout.write(`${JSON.stringify(printed)}\n`);
  if (!report.ok) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`${JSON.stringify({ error: { code: 'failed', message: err instanceof Error ? err.message : String(err) } })}\n`);
  process.exitCode = 1;
});
