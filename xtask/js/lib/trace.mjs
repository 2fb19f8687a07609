// Which DevTools trace engine the oracles run, chosen by `--engine NAME` on the
// command line (taken out of process.argv here, before a script reads its
// arguments):
//   current  (default) today's DevTools: the trace engine bundled in
//            chrome-devtools-mcp 1.11.0 (devtools-frontend f7e7785, October 2026)
//   0.0.65   @paulirish/trace_engine 0.0.65 (June 2026, the one Lighthouse 13.5 pins)
// Exports `Trace` (the engine's models/trace namespace), `Platform` (its
// core/platform namespace) and `ENGINE`, what the engine is (package and
// version, read from the packages installed), which every golden directory
// records in its ENGINE file.

import path from 'node:path';
import {createRequire} from 'node:module';
import {pathToFileURL} from 'node:url';

const ENGINES = ['current', '0.0.65'];
const require = createRequire(import.meta.url);

function takeEngineArg() {
  const i = process.argv.indexOf('--engine');
  if (i < 0) return 'current';
  const name = process.argv[i + 1];
  if (!ENGINES.includes(name)) {
    console.error(`oracle: --engine takes ${ENGINES.join(' or ')}, not ${name}`);
    process.exit(2);
  }
  process.argv.splice(i, 2);
  return name;
}

/** What the engine is, from the packages installed: the first line of the goldens' ENGINE file. */
function describe(name) {
  if (name === '0.0.65') {
    return `@paulirish/trace_engine ${require('@paulirish/trace_engine/package.json').version}`;
  }
  const root = path.dirname(require.resolve('chrome-devtools-mcp/package.json'));
  const bundled = require(path.join(root, 'build/src/third_party/bundled-packages.json'));
  const [, commit] = Object.entries(bundled).find(([key]) => key.endsWith('/devtools-frontend')) ?? [, '?'];
  const {version} = require('chrome-devtools-mcp/package.json');
  return `devtools-frontend ${commit.slice(0, 7)} (chrome-devtools-mcp ${version})`;
}

async function loadCurrent() {
  const root = path.dirname(require.resolve('chrome-devtools-mcp/package.json'));
  const load = rel => import(pathToFileURL(path.join(root, 'build/src', rel)).href);
  await load('utils/polyfill.js');
  // The MCP server sets DevTools' globals (locale, resource loading) before
  // it runs the engine; insights need them, and nothing here goes online.
  (await load('devtools/DevtoolsUtils.js')).overrideDevToolsGlobals({
    loadResource: async url => {
      throw new Error(`offline: ${url}`);
    },
  });
  const {DevTools} = await load('third_party/index.js');
  return {Trace: DevTools.TraceEngine, Platform: DevTools.Platform};
}

async function loadJune() {
  const {polyfillDOMRect} = await import('@paulirish/trace_engine/analyze-trace.mjs');
  polyfillDOMRect();
  return {
    Trace: await import('@paulirish/trace_engine/models/trace/trace.js'),
    Platform: await import('@paulirish/trace_engine/core/platform/platform.js'),
  };
}

export const ENGINE_NAME = takeEngineArg();
export const ENGINE = describe(ENGINE_NAME);
export const {Trace, Platform} = ENGINE_NAME === 'current' ? await loadCurrent() : await loadJune();
