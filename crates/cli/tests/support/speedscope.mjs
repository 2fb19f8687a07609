// Opens a speedscope export in the real speedscope app, in headless
// Chromium, and reports what the app shows, as JSON on stdout.
//
// Usage: node speedscope.mjs NODE_MODULES EXPORT SCREENSHOT
//
// The app (the npm package's dist/release) and the export are served on a
// localhost port by this script; the app loads the export from
// `#profileURL=`, as speedscope's own documentation tells. Reported:
// `imported` (speedscope logged that it imported a speedscope file),
// `errors` (console errors, failed imports, alerts, page errors, requests
// that failed or left localhost), `title` (the document title speedscope
// sets), `toolbar` (the text of its toolbar), `profiles` (the names listed
// by its profile selector).

import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const [nodeModules, exportFile, screenshot] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, 'noop.js'));
const { chromium } = require('playwright-core');
const app = path.join(nodeModules, 'speedscope', 'dist', 'release');

const types = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain',
};

// The export is served under the name speedscope recognizes by its end.
const exportPath = '/export.speedscope.json';

const server = createServer(async (request, response) => {
  const url = new URL(request.url, 'http://localhost');
  const file = url.pathname === exportPath ? exportFile : path.join(app, path.normalize(url.pathname === '/' ? '/index.html' : url.pathname));
  if (file !== exportFile && !file.startsWith(app)) {
    response.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    response.end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const errors = [];
let imported = false;
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    // speedscope draws with WebGL: without a GPU, Chromium's software one.
    '--enable-unsafe-swiftshader',
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  page.on('console', (message) => {
    const text = message.text();
    if (text.includes('Importing as speedscope json file')) imported = true;
    if (message.type() === 'error' || text.includes('Failed to load format')) errors.push(`console: ${text}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('dialog', async (dialog) => {
    errors.push(`alert: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) errors.push(`request left localhost: ${request.url()}`);
  });
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));

  await page.goto(`${origin}/index.html#profileURL=${encodeURIComponent(origin + exportPath)}`);
  // Loaded: speedscope names the document after the profile group.
  await page.waitForFunction(() => document.title.endsWith(' - speedscope') || document.body.innerText.includes('Something went wrong'), null, { timeout: 30000 });
  const body = await page.evaluate(() => document.body.innerText);
  if (body.includes('Something went wrong')) errors.push(`speedscope: ${body.trim()}`);
  await page.waitForTimeout(500);
  await page.screenshot({ path: screenshot });
  const title = await page.title();
  const toolbar = body.split('\n').slice(0, 3).join(' ');

  // The profile selector lists every profile: it opens from the name of
  // the profile shown, in the middle of the toolbar.
  let profiles = [];
  const current = page.getByText('(tid ', { exact: false }).first();
  if (await current.count()) {
    await current.click();
    await page.waitForTimeout(300);
    profiles = (await page.evaluate(() => document.body.innerText)).split('\n').filter((l) => l.includes('(tid '));
    await page.screenshot({ path: screenshot.replace(/\.png$/, '-profiles.png') });
  }
  console.log(JSON.stringify({ imported, errors, title, toolbar, profiles }));
} finally {
  await browser.close();
  server.close();
}
