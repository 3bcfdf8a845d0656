import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { type Checkpoint, leafHash, verifyCheckpoint, verifyConsistency, verifyInclusion } from '@bursar/crypto';

/** Where a log is served: its routes' base (`/ledger/v1/log`, `/control/v1/workspaces/<slug>/audit_log`) and its key set. */
export interface RemoteLog {
  baseUrl: string;
  logPath: string;
  jwksPath: string;
  /** A bearer token with read access to the log. */
  token: string;
}

export interface RemoteCheck {
  ok: boolean;
  saved: Checkpoint | null;
  latest: Checkpoint | null;
  /** The latest checkpoint as served (with its token): what to save and check the next one against. */
  latest_served: unknown;
  consistent: boolean | null;
  resources: { resource_id: string; entries: { index: number; type: string; included: boolean; leaf_ok: boolean }[] }[];
  problems: string[];
}

const hex = (h: string) => Buffer.from(h, 'hex');

async function fetchJson(url: string, token?: string): Promise<unknown> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Both services answer a resource, and a list's items, in `data`. */
async function fetchData<T>(url: string, token: string): Promise<T> {
  return ((await fetchJson(url, token)) as { data: T }).data;
}

/**
 * Checks a log from its API alone, trusting nothing it serves: the saved checkpoint and the latest
 * one must be signed by a key of the published set, the latest must extend the saved one
 * (consistency proof), and each named resource's entries must hash to what their leaves say and be
 * included in the latest tree (inclusion proofs).
 */
export async function verifyRemoteLog(log: RemoteLog, savedToken: string | null, resourceIds: readonly string[]): Promise<RemoteCheck> {
  const problems: string[] = [];
  const url = (path: string) => `${log.baseUrl.replace(/\/+$/, '')}${path}`;
  const jwks = (await fetchJson(url(log.jwksPath))) as { keys: (JsonWebKey & { kid: string })[] };
  const keys = new Map<string, KeyObject>(jwks.keys.map((k) => [k.kid, createPublicKey({ key: k, format: 'jwk' })]));
  const keyFor = (kid: string) => Promise.resolve(keys.get(kid));
  const check = async (token: string, what: string): Promise<Checkpoint | null> => {
    const verdict = await verifyCheckpoint(token, keyFor);
    if (typeof verdict === 'string') {
      problems.push(`the ${what} checkpoint does not verify against ${log.jwksPath}: ${verdict}`);
      return null;
    }
    return verdict.checkpoint;
  };

  const latestRow = await fetchData<{ token: string }>(url(`${log.logPath}/checkpoints/latest`), log.token);
  const latest = await check(latestRow.token, 'latest');
  const saved = savedToken ? await check(savedToken, 'saved') : null;
  let consistent: boolean | null = null;
  if (saved && latest) {
    const subject = (c: Checkpoint) => c.ledger_id ?? c.workspace_id;
    if (subject(saved) !== subject(latest)) problems.push('the saved checkpoint is of another log');
    else if (saved.tree_size > latest.tree_size) problems.push(`the saved checkpoint (size ${saved.tree_size}) is larger than the latest (${latest.tree_size})`);
    else {
      const proof = await fetchData<{ proof: string[] }>(url(`${log.logPath}/proofs/consistency?from_size=${saved.tree_size}&to_size=${latest.tree_size}`), log.token);
      consistent = verifyConsistency(saved.tree_size, latest.tree_size, proof.proof.map(hex), hex(saved.root_hash), hex(latest.root_hash));
      if (!consistent) problems.push(`the latest checkpoint (size ${latest.tree_size}) does not extend the saved one (size ${saved.tree_size})`);
    }
  }

  const resources: RemoteCheck['resources'] = [];
  for (const resourceId of resourceIds) {
    const list = {
      data: await fetchData<{ index: number; type: string; leaf: string; leaf_hash: string }[]>(
        url(`${log.logPath}/entries?limit=1000&resource_id=${encodeURIComponent(resourceId)}`),
        log.token,
      ),
    };
    const entries: RemoteCheck['resources'][number]['entries'] = [];
    if (list.data.length === 0) problems.push(`no entry names resource ${resourceId}`);
    for (const entry of list.data) {
      const leaf = JSON.parse(entry.leaf) as { index: number; resource_id: string };
      const leafOk = leafHash(Buffer.from(entry.leaf, 'utf8')).toString('hex') === entry.leaf_hash && leaf.index === entry.index && leaf.resource_id === resourceId;
      if (!leafOk) problems.push(`entry ${entry.index} of ${resourceId}: its leaf does not hash to its leaf_hash or names another place`);
      let included = false;
      if (latest && entry.index < latest.tree_size) {
        const proof = await fetchData<{ audit_path: string[] }>(url(`${log.logPath}/proofs/inclusion?index=${entry.index}&tree_size=${latest.tree_size}`), log.token);
        included = verifyInclusion(hex(entry.leaf_hash), entry.index, latest.tree_size, proof.audit_path.map(hex), hex(latest.root_hash));
        if (!included) problems.push(`entry ${entry.index} of ${resourceId} is not included in the latest checkpoint's tree`);
      } else if (latest) problems.push(`entry ${entry.index} of ${resourceId} is newer than the latest checkpoint; sign one and check again`);
      entries.push({ index: entry.index, type: entry.type, included, leaf_ok: leafOk });
    }
    resources.push({ resource_id: resourceId, entries });
  }
  return { ok: problems.length === 0 && latest !== null, saved, latest, latest_served: latestRow, consistent, resources, problems };
}
