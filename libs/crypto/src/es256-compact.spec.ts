import { createPublicKey, createPrivateKey } from 'node:crypto';
import { generateEs256KeyPair, signJws, verifyJws } from './es256';
import { signEs256, verifyEs256 } from './es256-compact';

describe('signEs256 / verifyEs256', () => {
  let pair: Awaited<ReturnType<typeof generateEs256KeyPair>>;
  const keyFor = (kid: string) => Promise.resolve(kid === pair.kid ? createPublicKey({ key: pair.publicJwk, format: 'jwk' }) : undefined);

  beforeAll(async () => {
    pair = await generateEs256KeyPair();
  });

  it('makes tokens jose verifies, with the header it was given', async () => {
    const token = await signEs256({ kid: pair.kid, typ: 'JWT' }, { sub: 'agent_1' }, createPrivateKey({ key: pair.privateJwk, format: 'jwk' }));
    const { payload, kid } = await verifyJws(token, { keys: [pair.publicJwk] });
    expect({ kid, sub: payload.sub }).toEqual({ kid: pair.kid, sub: 'agent_1' });
  });

  it('checks tokens jose made', async () => {
    const token = await signJws({ sub: 'agent_2' }, pair.privateJwk, pair.kid);
    expect(await verifyEs256(token, keyFor)).toEqual({ header: { alg: 'ES256', kid: pair.kid }, payload: expect.objectContaining({ sub: 'agent_2' }) });
  });

  it('names what is wrong: malformed, unknown key, bad signature', async () => {
    const token = await signJws({ sub: 'agent_3' }, pair.privateJwk, pair.kid);
    const [header, payload, signature] = token.split('.');
    expect(await verifyEs256('not-a-jwt', keyFor)).toBe('malformed');
    expect(await verifyEs256(`${header}.${payload}`, keyFor)).toBe('malformed');
    expect(await verifyEs256(token, () => Promise.resolve(undefined))).toBe('unknown_key');
    const forged = Buffer.from(JSON.stringify({ sub: 'agent_4' })).toString('base64url');
    expect(await verifyEs256(`${header}.${forged}.${signature}`, keyFor)).toBe('bad_signature');
  });

  it('reuses header encodings per kid and typ without mixing them up, and signs every payload anew', async () => {
    const key = createPrivateKey({ key: pair.privateJwk, format: 'jwk' });
    const decode = (token: string) => token.split('.').map((part, i) => (i < 2 ? JSON.parse(Buffer.from(part, 'base64url').toString()) : part));
    const [h1, p1, s1] = decode(await signEs256({ kid: pair.kid, typ: 'JWT' }, { n: 1 }, key));
    const [h2, p2, s2] = decode(await signEs256({ kid: pair.kid, typ: 'JWT' }, { n: 2 }, key));
    const [h3] = decode(await signEs256({ kid: 'other', typ: 'JWT' }, { n: 1 }, key));
    const [h4] = decode(await signEs256({ kid: pair.kid, typ: 'at+jwt' }, { n: 1 }, key));
    expect([h1, h2, h3, h4]).toEqual([
      { alg: 'ES256', kid: pair.kid, typ: 'JWT' },
      { alg: 'ES256', kid: pair.kid, typ: 'JWT' },
      { alg: 'ES256', kid: 'other', typ: 'JWT' },
      { alg: 'ES256', kid: pair.kid, typ: 'at+jwt' },
    ]);
    expect([p1, p2]).toEqual([{ n: 1 }, { n: 2 }]);
    expect(s1).not.toBe(s2);
  });
});
