// What the Node tests of the npm package share: where the built package,
// the native CLI and the fixtures are (from the environment the Rust test
// crates/cli/tests/wasm_package.rs sets), the package loaded once, the
// CLI run on a file or on bytes, and the inputs fed in chunks.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, basename } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

/** The workspace root. */
export const root = process.env.TRACEKIT_ROOT ?? fileURLToPath(new URL('../../../../', import.meta.url));

function required(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run these tests with cargo test -p tracekit-cli --test wasm_package`);
  }
  return value;
}

/** The built package's directory (`cargo xtask wasm --out DIR`). */
export const packageDir = required('TRACEKIT_PKG');
/** The native `tracekit` command of the same sources. */
export const cli = required('TRACEKIT_CLI');

/** The package, initialized. */
export async function loadPackage() {
  const tracekit = await import(pathToFileURL(join(packageDir, 'tracekit.js')).href);
  await tracekit.init();
  return tracekit;
}

/** The DevTools engine the package follows when the `devtools` option is left out. */
export const DEFAULT_DEVTOOLS = '2026-10';

/**
 * The fixture directories and the directory of their goldens under
 * `fixtures/expected/ENGINE/` (`crates/conformance`'s FIXTURE_SETS).
 */
const FIXTURE_SETS = [
  ['fixtures/traces', ''],
  ['fixtures/handwritten', 'handwritten'],
  ['fixtures/repaired', 'repaired'],
  ['fixtures/hostile', null],
];

/** The golden's name of a trace, as `xtask/js/oracle.mjs` names it. */
function goldenName(file) {
  let name = basename(file);
  name = name.replace(/\.gz$/, '');
  name = name.replace(/\.(json|cpuprofile)$/, '');
  return `${name}.json`;
}

/**
 * Every fixture trace: `{path, name, golden}` (golden: the path of its
 * golden written by the DevTools engine `devtools`, or null).
 */
export function fixtures(devtools = DEFAULT_DEVTOOLS) {
  const out = [];
  for (const [dir, expected] of FIXTURE_SETS) {
    const full = join(root, dir);
    if (!existsSync(full)) continue;
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      if (!entry.isFile() || entry.name.endsWith('.md') || entry.name.startsWith('.')) continue;
      const golden = expected !== null && join(root, 'fixtures/expected', devtools, expected, goldenName(entry.name));
      out.push({
        path: join(full, entry.name),
        name: `${dir}/${entry.name}`,
        golden: golden && existsSync(golden) ? golden : null,
      });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Runs the CLI with `args` (`-` for standard input, fed `stdin`): its
 * status, stdout and stderr.
 */
export function runCli(args, stdin) {
  const result = spawnSync(cli, args, {
    input: stdin,
    maxBuffer: 1 << 30,
    encoding: 'buffer',
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8') };
}

/** The message of a failed CLI run on standard input, as the JS Error carries it. */
export function cliMessage(stderr) {
  const line = stderr.trim().split('\n').at(-1);
  const prefix = 'tracekit: <stdin>: ';
  if (!line.startsWith(prefix)) throw new Error(`not the CLI's one-line error: ${stderr}`);
  return line.slice(prefix.length);
}

/** Loads `bytes` through a Loader in chunks of `size` bytes. */
export function loadInChunks(tracekit, bytes, size, options) {
  const loader = new tracekit.Loader(options);
  for (let at = 0; at < bytes.length; at += size) {
    loader.push(bytes.subarray(at, Math.min(at + size, bytes.length)));
  }
  return loader.finish();
}

/** The CLI run in the background, fed chunks as they come: for inputs too big to hold. */
export function startCli(args) {
  const child = spawn(cli, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr = [];
  child.stderr.on('data', (d) => stderr.push(d));
  const done = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr: Buffer.concat(stderr).toString('utf8') }));
  });
  return { child, done };
}

/** A file's bytes. */
export function read(path) {
  return new Uint8Array(readFileSync(path));
}
