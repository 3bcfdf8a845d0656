import { readFileSync } from 'node:fs';
import path from 'node:path';

// Scripts must run on the pinned `node` devDependency, not on whatever Node runs pnpm.
describe('runtime', () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
    engines: { node: string };
    devDependencies: Record<string, string>;
  };

  it('is the Node.js that package.json pins, which engines accepts', () => {
    expect(process.versions.node).toBe(pkg.devDependencies.node);
    const [major, minor] = process.versions.node.split('.').map(Number);
    const [, wantMajor, wantMinor] = /^>=(\d+)\.(\d+)/.exec(pkg.engines.node) ?? [];
    expect(major > Number(wantMajor) || (major === Number(wantMajor) && minor >= Number(wantMinor))).toBe(true);
    expect(major % 2).toBe(0); // an LTS line
  });
});
