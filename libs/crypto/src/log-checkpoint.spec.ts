import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { generateEs256KeyPair } from './es256';
import { signEs256 } from './es256-compact';
import { CHECKPOINT_TYP, checkpointPayload, signCheckpoint, verifyCheckpoint } from './log-checkpoint';
import { leafHash, rootOf } from './merkle-log';

describe('log checkpoints', () => {
  let ours: { kid: string; key: KeyObject; pub: KeyObject };
  let foreign: { kid: string; key: KeyObject };
  const keyFor = (kid: string) => Promise.resolve(kid === ours.kid ? ours.pub : undefined);
  const root = rootOf(['a', 'b', 'c'].map((d) => leafHash(d)));
  const checkpoint = () => checkpointPayload({ subject: 'ledger_id', log_id: 'ldg_1', tree_size: 3, root_hash: root, timestamp: new Date('2026-11-28T09:00:00.000Z') });

  beforeAll(async () => {
    const [a, b] = await Promise.all([generateEs256KeyPair(), generateEs256KeyPair()]);
    ours = { kid: a.kid, key: createPrivateKey({ key: a.privateJwk, format: 'jwk' }), pub: createPublicKey({ key: a.publicJwk, format: 'jwk' }) };
    foreign = { kid: b.kid, key: createPrivateKey({ key: b.privateJwk, format: 'jwk' }) };
  });

  it('writes the root as hex and the time as RFC 3339, and refuses malformed members', () => {
    expect(checkpoint()).toEqual({ ledger_id: 'ldg_1', tree_size: 3, root_hash: root.toString('hex'), timestamp: '2026-11-28T09:00:00.000Z' });
    expect(() => checkpointPayload({ subject: 'ledger_id', log_id: 'ldg_1', tree_size: -1, root_hash: root, timestamp: new Date() })).toThrow(/tree_size/);
    expect(() => checkpointPayload({ subject: 'ledger_id', log_id: 'ldg_1', tree_size: 1, root_hash: root.subarray(1), timestamp: new Date() })).toThrow(/root_hash/);
    expect(() => checkpointPayload({ subject: 'ledger_id', log_id: '', tree_size: 1, root_hash: root, timestamp: new Date() })).toThrow(/ledger_id/);
  });

  it('verifies with the log key and gives back the checkpoint and kid', async () => {
    const token = await signCheckpoint(checkpoint(), ours);
    expect(await verifyCheckpoint(token, keyFor)).toEqual({ checkpoint: checkpoint(), kid: ours.kid });
  });

  it('fails a checkpoint signed by a foreign key, under its own kid or under ours', async () => {
    expect(await verifyCheckpoint(await signCheckpoint(checkpoint(), foreign), keyFor)).toBe('unknown_key');
    expect(await verifyCheckpoint(await signCheckpoint(checkpoint(), { kid: ours.kid, key: foreign.key }), keyFor)).toBe('bad_signature');
  });

  it('fails an altered payload, another typ, or extra members', async () => {
    const [header, , signature] = (await signCheckpoint(checkpoint(), ours)).split('.');
    const altered = Buffer.from(JSON.stringify({ ...checkpoint(), tree_size: 4 })).toString('base64url');
    expect(await verifyCheckpoint(`${header}.${altered}.${signature}`, keyFor)).toBe('bad_signature');
    expect(await verifyCheckpoint(await signEs256({ kid: ours.kid, typ: 'JWT' }, checkpoint(), ours.key), keyFor)).toBe('malformed');
    expect(await verifyCheckpoint(await signEs256({ kid: ours.kid, typ: CHECKPOINT_TYP }, { ...checkpoint(), extra: 1 }, ours.key), keyFor)).toBe('malformed');
    expect(await verifyCheckpoint(await signEs256({ kid: ours.kid, typ: CHECKPOINT_TYP }, { ...checkpoint(), root_hash: 'AB' }, ours.key), keyFor)).toBe('malformed');
    const { ledger_id, ...rest } = checkpoint();
    const both = { ...rest, ledger_id, workspace_id: 'ws_1' };
    expect(await verifyCheckpoint(await signEs256({ kid: ours.kid, typ: CHECKPOINT_TYP }, { ...rest, workspace_id: ledger_id, timestamp: rest.timestamp }, ours.key), keyFor)).toMatchObject({
      checkpoint: { workspace_id: 'ldg_1' },
    });
    expect(await verifyCheckpoint(await signEs256({ kid: ours.kid, typ: CHECKPOINT_TYP }, both, ours.key), keyFor)).toBe('malformed');
  });
});
