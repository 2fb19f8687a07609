#!/usr/bin/env node
// Builds the bundles scenario's two scripts (fixtures/pages/bundles/app-a.js and app-b.js, each
// with its source map) from fixtures/pages/bundles/src with esbuild. Both entry points import
// src/lib/format.js, so each bundle carries its own copy of that module: the duplicated
// JavaScript DevTools finds through the maps. The outputs are committed; run this again only
// after changing src/.
//
//   node xtask/js/build-bundles.mjs
import * as esbuild from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/pages/bundles');

await esbuild.build({
  absWorkingDir: DIR,
  entryPoints: ['src/app-a.js', 'src/app-b.js'],
  outdir: '.',
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  // Each bundle ends with `//# sourceMappingURL=app-X.js.map`, the map next to it.
  sourcemap: 'linked',
  logLevel: 'info',
});
