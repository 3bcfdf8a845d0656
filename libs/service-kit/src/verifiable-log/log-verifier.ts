import type { KeyObject } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { appendLeaf, EMPTY_FRONTIER, type LogSubject, type MerkleFrontier, rootOfState, verifyCheckpoint } from '@bursar/crypto';
import { comparePositions, logLeaf, logLeafHash } from './log-leaf';
import type { LogPosition, LogSource } from './log-source';
import type { LogCheckpointRow, LogStore } from './log-store';

export type LogProblem =
  | 'index_gap'
  | 'source_missing'
  | 'leaf_mismatch'
  | 'leaf_hash_mismatch'
  | 'out_of_order'
  | 'checkpoint_bad_signature'
  | 'checkpoint_unknown_key'
  | 'checkpoint_malformed'
  | 'checkpoint_mismatch'
  | 'root_mismatch'
  | 'head_mismatch'
  | 'unsealed_changes';

export interface LogFinding {
  problem: LogProblem;
  index?: number;
  type?: string;
  resource_id?: string;
  tree_size?: number;
  detail: string;
}

export interface LogVerification {
  log_id: string;
  ok: boolean;
  tree_size: number;
  checkpoints_checked: number;
  /** Entries whose personal data a lawful erasure changed after sealing: vouched for by their sealed leaf. */
  erased_entries: number;
  findings: LogFinding[];
}

const PAGE = 1_000;
/** A broken log can have a finding per entry; past this many the report stops listing them. */
const MAX_FINDINGS = 100;

/** The JSON members that differ between two leaves, by path, so a finding says what was changed. */
function differences(stored: string, rebuilt: string): string[] {
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, path: string) => {
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    if (a && b && typeof a === 'object' && typeof b === 'object') {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
    } else out.push(path || '(leaf)');
  };
  walk(JSON.parse(stored), JSON.parse(rebuilt), '');
  return out;
}

/**
 * Checks one log against the database it was sealed from: every index present once and in commit
 * order, every leaf rebuilt from the rows it names and equal to the one hashed, every checkpoint
 * signed by a published key over the root those rebuilt leaves give, the head equal to the whole
 * tree, and no final change left out.
 */
export async function verifyLog(
  em: EntityManager,
  deps: { store: LogStore; source: LogSource; subject: LogSubject; keyFor: (kid: string) => Promise<KeyObject | undefined> },
  logId: string,
): Promise<LogVerification> {
  const { store, source } = deps;
  const findings: LogFinding[] = [];
  const add = (f: LogFinding) => findings.length < MAX_FINDINGS && findings.push(f);
  const checkpoints = (await store.checkpoints(em, logId, { limit: 1_000_000 })).reverse();
  let nextCheckpoint = 0;
  let frontier: MerkleFrontier = EMPTY_FRONTIER;
  let last: LogPosition | null = null;
  let checked = 0;
  let erased = 0;
  const erasure = (await source.erasure?.(em, logId)) ?? null;

  const checkCheckpoint = async (cp: LogCheckpointRow) => {
    checked++;
    const size = Number(cp.tree_size);
    const verdict = await verifyCheckpoint(cp.token, deps.keyFor);
    if (typeof verdict === 'string') {
      const problem = verdict === 'unknown_key' ? 'checkpoint_unknown_key' : verdict === 'bad_signature' ? 'checkpoint_bad_signature' : 'checkpoint_malformed';
      add({ problem, tree_size: size, detail: `the checkpoint at tree size ${size} does not verify against the published keys (${verdict})` });
      return;
    }
    const c = verdict.checkpoint;
    if (c[deps.subject] !== logId || c.tree_size !== size || c.root_hash !== cp.root_hash.toString('hex')) {
      add({ problem: 'checkpoint_mismatch', tree_size: size, detail: `the signed checkpoint at tree size ${size} does not match its stored row` });
    }
    const root = rootOfState(frontier).toString('hex');
    if (frontier.size === size && c.root_hash !== root) {
      add({ problem: 'root_mismatch', tree_size: size, detail: `the entries rebuilt from the rows give root ${root} at tree size ${size}, the checkpoint signed ${c.root_hash}` });
    }
  };

  for (let after = -1; ; ) {
    const page = await store.entries(em, logId, { afterIndex: after, limit: PAGE });
    if (page.length === 0) break;
    const rebuilt = await source.rebuild(em, logId, page.map((e) => e.source_id));
    for (const entry of page) {
      const index = Number(entry.index);
      const named = { index, type: entry.type, resource_id: entry.resource_id };
      while (frontier.size < index) {
        add({ ...named, problem: 'index_gap', detail: `no entry at index ${frontier.size}` });
        frontier = appendLeaf(frontier, Buffer.alloc(32));
      }
      const position = { xid: entry.xid, seq: entry.seq };
      if (last && comparePositions(last, position) >= 0) add({ ...named, problem: 'out_of_order', detail: `entry ${index} is not after entry ${index - 1} in commit order` });
      last = position;
      if (!logLeafHash(entry.leaf).equals(entry.leaf_hash)) add({ ...named, problem: 'leaf_hash_mismatch', detail: `entry ${index}'s stored leaf hash is not the hash of its leaf` });
      const change = rebuilt.get(entry.source_id);
      let leafHash = entry.leaf_hash;
      if (!change) {
        add({ ...named, problem: 'source_missing', detail: `the row entry ${index} was sealed from (${entry.source_id}) is gone` });
      } else {
        const leaf = logLeaf(index, change);
        const differ = leaf === entry.leaf ? [] : differences(entry.leaf, leaf);
        if (differ.length > 0 && erasure && entry.committed_at <= erasure.before && differ.every((m) => erasure.members.includes(m))) erased++;
        else {
          leafHash = logLeafHash(leaf);
          if (differ.length > 0) add({ ...named, problem: 'leaf_mismatch', detail: `entry ${index} rebuilt from the rows differs in ${differ.join(', ')}` });
        }
      }
      frontier = appendLeaf(frontier, leafHash);
      while (nextCheckpoint < checkpoints.length && Number(checkpoints[nextCheckpoint].tree_size) === frontier.size) await checkCheckpoint(checkpoints[nextCheckpoint++]);
    }
    after = Number(page[page.length - 1].index);
  }
  for (; nextCheckpoint < checkpoints.length; nextCheckpoint++) {
    const cp = checkpoints[nextCheckpoint];
    if (Number(cp.tree_size) === 0) await checkCheckpoint(cp);
    else add({ problem: 'root_mismatch', tree_size: Number(cp.tree_size), detail: `a checkpoint signs tree size ${cp.tree_size}, the log holds ${frontier.size} entries` });
  }
  const head = await store.head(em, logId);
  if (head.frontier.size !== frontier.size || !rootOfState(head.frontier).equals(rootOfState(frontier))) {
    add({ problem: 'head_mismatch', tree_size: head.frontier.size, detail: `the stored head (size ${head.frontier.size}) is not the tree of the entries (size ${frontier.size})` });
  }
  const complete = await source.countUpTo(em, logId, await store.position(em));
  if (complete !== frontier.size) {
    add({ problem: 'unsealed_changes', detail: `${complete} changes are final up to the sealer's position, the log holds ${frontier.size}` });
  }
  return { log_id: logId, ok: findings.length === 0, tree_size: frontier.size, checkpoints_checked: checked, erased_entries: erased, findings };
}

/**
 * verifyLog in one read-only snapshot: a sealer committing meanwhile cannot make the entries, the
 * head and the sealer's position disagree (a read-only transaction has no id, so it holds no
 * sealer back).
 */
export function verifyLogInSnapshot(dataSource: DataSource, deps: Parameters<typeof verifyLog>[1], logId: string): Promise<LogVerification> {
  return dataSource.transaction('REPEATABLE READ', async (em) => {
    await em.query('SET TRANSACTION READ ONLY');
    return verifyLog(em, deps, logId);
  });
}
