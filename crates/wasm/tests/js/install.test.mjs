// The package as a user gets it: `npm pack` (which keeps only the files
// package.json lists), `npm install` of the tarball into an empty project
// (offline: the package has no dependencies), then the README's first
// example there, importing the bare specifier 'tracekit', in TypeScript's
// eyes too (the types resolve through package.json).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { packageDir, root, runCli } from './support.mjs';

test('npm pack, npm install, then import it by name', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracekit-install-'));
  try {
    execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack made a tarball');
    const app = join(dir, 'app');
    execFileSync('mkdir', [app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', join(dir, tarball)], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    for (const file of ['tracekit.js', 'tracekit.d.ts', 'tracekit_wasm.js', 'tracekit_wasm_bg.wasm', 'README.md', 'package.json', 'demo/index.html']) {
      assert.ok(existsSync(join(app, 'node_modules/tracekit', file)), `the installed package has ${file}`);
    }
    const fixture = join(root, 'fixtures/traces/main-thread.json.gz');
    writeFileSync(
      join(app, 'main.mjs'),
      `import { createReadStream } from 'node:fs';
import * as tracekit from 'tracekit';

await tracekit.init();
const loader = new tracekit.Loader();
await loader.pushStream(createReadStream(${JSON.stringify(fixture)}));
const trace = loader.finish();
process.stdout.write(trace.conformance());
const tracks = trace.tracks({ thread: 'CrRendererMain', maxDepth: 3 });
process.stderr.write(tracks.processes.flatMap((p) => p.threads).map((t) => t.name + ' ' + t.nodes.length).join('\\n'));
trace.free();
`,
    );
    const out = execFileSync('node', ['main.mjs'], { cwd: app, encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(out, runCli(['tracks', fixture, '--format', 'conformance', '-q']).stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
