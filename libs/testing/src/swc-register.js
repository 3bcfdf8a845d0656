// Lets a child `node` process run the TypeScript sources directly (tests start a real worker
// process to kill it). Compiles each .ts file with the repository's .swcrc, aliases included.
const fs = require('node:fs');
const path = require('node:path');
const swc = require('@swc/core');

const root = path.resolve(__dirname, '../../..');
const config = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
config.jsc.baseUrl = root;
config.sourceMaps = 'inline';
delete config.$schema;

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = swc.transformSync(source, { ...config, filename, swcrc: false, configFile: false });
  module._compile(code, filename);
};
