import type { KeyObject } from 'node:crypto';
import { signEs256, verifyEs256 } from './es256-compact';

/*
 * A signed tree head of a Merkle log (merkle-log.ts): whose log it is, how many entries it covers and
 * their root. Signed as a compact JWS (ES256) with its own `typ`, so no other token the same key signs
 * (a cosignature, an access token) can be passed off as a checkpoint. docs/verifiable-records.md.
 */

export const CHECKPOINT_TYP = 'bursar-checkpoint+jwt';

/** The member naming the log: a ledger's books, or a control workspace's audit log. */
export const LOG_SUBJECTS = ['ledger_id', 'workspace_id'] as const;
export type LogSubject = (typeof LOG_SUBJECTS)[number];

/** The signed payload: one subject member, then these three. `root_hash` is lowercase hex, as every other digest Bursar publishes. */
export type Checkpoint = { [S in LogSubject]?: string } & {
  tree_size: number;
  root_hash: string;
  timestamp: string;
};

const HEX_ROOT = /^[0-9a-f]{64}$/;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** The one subject member a payload names, or null when it names none or two. */
export function checkpointSubject(c: Record<string, unknown>): LogSubject | null {
  const named = LOG_SUBJECTS.filter((s) => s in c);
  return named.length === 1 ? named[0] : null;
}

function problem(c: Record<string, unknown>): string | null {
  const subject = checkpointSubject(c);
  if (subject === null) return `exactly one of ${LOG_SUBJECTS.join(', ')} must be given`;
  if (typeof c[subject] !== 'string' || c[subject] === '') return `${subject} must be a non-empty string`;
  if (typeof c.tree_size !== 'number' || !Number.isSafeInteger(c.tree_size) || c.tree_size < 0) return 'tree_size must be a non-negative integer';
  if (typeof c.root_hash !== 'string' || !HEX_ROOT.test(c.root_hash)) return 'root_hash must be 64 lowercase hex digits';
  if (typeof c.timestamp !== 'string' || !RFC3339_UTC.test(c.timestamp)) return 'timestamp must be an RFC 3339 UTC time';
  return null;
}

/** The payload of a checkpoint, with its members in a fixed order; throws on a malformed member. */
export function checkpointPayload(input: { subject: LogSubject; log_id: string; tree_size: number; root_hash: Uint8Array; timestamp: Date }): Checkpoint {
  const checkpoint = {
    [input.subject]: input.log_id,
    tree_size: input.tree_size,
    root_hash: Buffer.from(input.root_hash).toString('hex'),
    timestamp: input.timestamp.toISOString(),
  } as Checkpoint;
  const wrong = problem(checkpoint);
  if (wrong) throw new RangeError(`Not a checkpoint: ${wrong}`);
  return checkpoint;
}

export function signCheckpoint(checkpoint: Checkpoint, signer: { kid: string; key: KeyObject }): Promise<string> {
  return signEs256({ kid: signer.kid, typ: CHECKPOINT_TYP }, checkpoint, signer.key);
}

export type CheckpointCheck = { checkpoint: Checkpoint; kid: string } | 'malformed' | 'unknown_key' | 'bad_signature';

/** Signature first, then the header's `typ` and the payload's members, exactly the four of a checkpoint. */
export async function verifyCheckpoint(token: string, keyFor: (kid: string) => Promise<KeyObject | undefined>): Promise<CheckpointCheck> {
  const checked = await verifyEs256(token, keyFor);
  if (typeof checked === 'string') return checked;
  const { header, payload } = checked;
  if (header.typ !== CHECKPOINT_TYP || typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'malformed';
  const members = payload as Record<string, unknown>;
  if (Object.keys(members).length !== 4 || problem(members) !== null) return 'malformed';
  const subject = checkpointSubject(members) as LogSubject;
  const { tree_size, root_hash, timestamp } = members as Checkpoint;
  return { checkpoint: { [subject]: members[subject], tree_size, root_hash, timestamp } as Checkpoint, kid: header.kid as string };
}
