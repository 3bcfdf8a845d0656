import { randomBytes } from 'node:crypto';
import { deriveSubkey, KEY_PURPOSES, parseKeyList, RootKeys, rootKeyId, sealedKeyId } from './root-key';
import { SecretBox } from './secret-box';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');

describe('root key subkeys', () => {
  it('derives a different subkey for every purpose, none equal to the root', () => {
    const root = Buffer.from(keyA, 'base64');
    const subkeys = Object.values(KEY_PURPOSES).map((p) => deriveSubkey(root, p).toString('hex'));
    expect(new Set([...subkeys, root.toString('hex')]).size).toBe(subkeys.length + 1);
    expect(deriveSubkey(root, KEY_PURPOSES.sealedRows)).toEqual(deriveSubkey(Buffer.from(keyA, 'base64'), KEY_PURPOSES.sealedRows));
    expect(deriveSubkey(Buffer.from(keyB, 'base64'), KEY_PURPOSES.sealedRows)).not.toEqual(deriveSubkey(root, KEY_PURPOSES.sealedRows));
  });

  it('lists subkeys current first, and drops a previous key equal to the current one', () => {
    const keys = RootKeys.fromSettings(keyB, ` ${keyA}, ${keyB} ,`);
    expect(keys.previous).toHaveLength(1);
    const [current, previous] = keys.subkeys(KEY_PURPOSES.cursors);
    expect(current).toEqual(deriveSubkey(Buffer.from(keyB, 'base64'), KEY_PURPOSES.cursors));
    expect(previous).toEqual(deriveSubkey(Buffer.from(keyA, 'base64'), KEY_PURPOSES.cursors));
    expect(parseKeyList(undefined)).toEqual([]);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => new RootKeys(keyA, ['c2hvcnQ='])).toThrow(/32 bytes/);
  });
});

describe('sealed rows box', () => {
  it('seals as v2.<kid>. under the sealed-row subkey, not the raw key', () => {
    const box = new RootKeys(keyA).sealedRows();
    const sealed = box.encrypt('whsec_x', 'endpoint:1');
    expect(sealed.startsWith(`v2.${rootKeyId(Buffer.from(keyA, 'base64'))}.`)).toBe(true);
    expect(sealedKeyId(sealed)).toBe(new RootKeys(keyA).currentId);
    expect(box.decrypt(sealed, 'endpoint:1')).toBe('whsec_x');
    expect(() => box.decrypt(sealed, 'endpoint:2')).toThrow(/decryption failed/);
    // The raw root key does not open it: the value is keyed by the derived subkey.
    const raw = SecretBox.fromBase64(keyA);
    expect(() => raw.decrypt(sealed.replace(/^v2\.[^.]+\./, 'v1.'), 'endpoint:1')).toThrow(/decryption failed/);
  });

  it('opens legacy values sealed with the raw current or previous root key', () => {
    const legacyA = SecretBox.fromBase64(keyA).encrypt('old', 'aad');
    const legacyB = SecretBox.fromBase64(keyB).encrypt('older', 'aad');
    expect(sealedKeyId(legacyA)).toBeNull();
    const box = new RootKeys(keyB, [keyA]).sealedRows();
    expect(box.decrypt(legacyA, 'aad')).toBe('old');
    expect(box.decrypt(legacyB, 'aad')).toBe('older');
    expect(() => new RootKeys(keyB).sealedRows().decrypt(legacyA, 'aad')).toThrow(/decryption failed/);
  });

  it('opens values of any configured kid and names an unknown one', () => {
    const underA = new RootKeys(keyA).sealedRows().encrypt('s');
    expect(new RootKeys(keyB, [keyA]).sealedRows().decrypt(underA)).toBe('s');
    expect(() => new RootKeys(keyB).sealedRows().decrypt(underA)).toThrow(/no configured key has id/);
    expect(() => new RootKeys(keyB).sealedRows().decrypt('v2.x.y')).toThrow(/malformed/);
    const rotated = new RootKeys(keyB, [keyA]).sealedRows().encrypt('s');
    expect(sealedKeyId(rotated)).toBe(new RootKeys(keyB).currentId);
  });
});
