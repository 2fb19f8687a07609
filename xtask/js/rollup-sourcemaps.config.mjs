// The rollup builds of the source maps fixture (fixtures/sourcemaps/,
// its README says how they are made): src/ bundled by rollup and minified
// by terser (@rollup/plugin-terser), as an IIFE, once with a map that has
// `sourcesContent` and once without. `npx rollup -c
// rollup-sourcemaps.config.mjs` in this directory.
import { fileURLToPath } from 'node:url';
import terser from '@rollup/plugin-terser';

const dir = fileURLToPath(new URL('../../fixtures/sourcemaps/', import.meta.url));

const build = (file, sourcemapExcludeSources) => ({
  input: `${dir}src/main.js`,
  output: { file: `${dir}${file}`, format: 'iife', sourcemap: true, sourcemapExcludeSources, plugins: [terser()] },
});

export default [build('rollup.js', false), build('rollup-nocontent.js', true)];
