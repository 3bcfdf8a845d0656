import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = fileURLToPath(new URL('.', import.meta.url));

// Relative asset paths, so the same build is served at / (pnpm start, :3003) and at /console/ (gateway).
export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  // The one shared lib the browser bundle uses (tsconfig.json maps the same name for the type check).
  resolve: { alias: { '@bursar/policy-rules': fileURLToPath(new URL('../../libs/policy-rules/src/index.ts', import.meta.url)) } },
  build: { outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)), emptyOutDir: true, chunkSizeWarningLimit: 1000 },
});
