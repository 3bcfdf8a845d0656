// Maps the tsconfig path aliases (@bursar/*, relative to the tsconfig) to source files so tests run without a build.
const fs = require('node:fs');
const path = require('node:path');

function pathsToModuleNameMapper(tsconfigPath) {
  const { compilerOptions } = JSON.parse(fs.readFileSync(tsconfigPath, 'utf8'));
  const root = path.dirname(tsconfigPath);
  const mapper = {};
  for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
    mapper[`^${alias.replace('/', '\\/')}$`] = path.join(root, target);
  }
  return mapper;
}

module.exports = { pathsToModuleNameMapper };
