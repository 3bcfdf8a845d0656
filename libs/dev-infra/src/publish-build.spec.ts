import { mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync, mkdirSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { publishBuild } from './publish-build';

describe('publishBuild', () => {
  let dir: string;
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'publish-build-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('swaps changed files in whole, leaves identical and extra ones alone, and makes new folders', () => {
    const [staging, target] = [path.join(dir, 'staging'), path.join(dir, 'dist')];
    write(path.join(target, 'a/changed.js'), 'old');
    write(path.join(target, 'a/same.js'), 'same');
    write(path.join(target, 'only-in-dist.js'), 'kept');
    write(path.join(staging, 'a/changed.js'), 'new');
    write(path.join(staging, 'a/same.js'), 'same');
    write(path.join(staging, 'b/c/added.js'), 'added');
    const sameInode = statSync(path.join(target, 'a/same.js')).ino;
    // A reader that opened the old file before the swap still reads it whole afterwards.
    const reader = openSync(path.join(target, 'a/changed.js'), 'r');

    expect(publishBuild(staging, target)).toEqual({ replaced: 2, unchanged: 1 });

    const buffer = Buffer.alloc(16);
    const read = readSync(reader, buffer, 0, 16, 0);
    closeSync(reader);
    expect(buffer.subarray(0, read).toString()).toBe('old');
    expect(readFileSync(path.join(target, 'a/changed.js'), 'utf8')).toBe('new');
    expect(readFileSync(path.join(target, 'b/c/added.js'), 'utf8')).toBe('added');
    expect(readFileSync(path.join(target, 'only-in-dist.js'), 'utf8')).toBe('kept');
    expect(statSync(path.join(target, 'a/same.js')).ino).toBe(sameInode);
  });
});
