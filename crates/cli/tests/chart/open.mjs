// What the browser tests of the chart share (page.mjs, causes.mjs): open a
// chart in headless Chromium from disk, wait for it to draw, note the
// console, page errors, requests and performance marks, take the first
// screenshot, and measure the ink (pixels far from white) in each track's
// rows; then run the test's own steps and print all it saw as one JSON
// object (`failure` set when a step threw).

import { createRequire } from 'node:module';
import path from 'node:path';

// config: {"html": path, "nodeModules": dir of playwright-core,
// "screenshots": dir}; name: the first screenshot is NAME-opened.png;
// opts.ready(page, out): awaited once the chart is up, before the first
// frame; steps({page, out, frame, shot, box}): the test's own.
export async function withChart(config, name, opts, steps) {
  const require = createRequire(path.join(config.nodeModules, 'noop.js'));
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const out = { console: [], pageErrors: [], requests: [] };
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => out.console.push({ type: m.type(), text: m.text() }));
    page.on('pageerror', (e) => out.pageErrors.push(String(e)));
    page.on('request', (r) => out.requests.push(r.url()));
    out.url = `file://${config.html}`;
    await page.goto(out.url, { timeout: 120_000 });
    await page.waitForFunction(() => window.tracekitChart || document.getElementById('tracekit-error'), null, { timeout: 120_000 });
    const error = await page.evaluate(() => document.getElementById('tracekit-error')?.textContent ?? null);
    if (error) throw new Error(error);
    if (opts.ready) await opts.ready(page, out);
    const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await frame();
    out.marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])));
    const shot = (shotName) => page.screenshot({ path: path.join(config.screenshots, `${shotName}.png`) });
    await shot(`${name}-opened`);
    const box = await page.evaluate(() => {
      const r = tracekitChart.canvas.getBoundingClientRect();
      return { x: r.left, y: r.top };
    });
    out.tracks = await page.evaluate(() => {
      const chart = tracekitChart;
      const g = chart.geometry();
      return g.tracks.map((t) => {
        const y0 = Math.round((t.top + g.headerHeight) * chart.ratio);
        const y1 = Math.round((t.top + t.height) * chart.ratio);
        const data = chart.ctx.getImageData(0, y0, chart.canvas.width, Math.max(1, y1 - y0)).data;
        let ink = 0;
        for (let i = 0; i < data.length; i += 4) if (765 - data[i] - data[i + 1] - data[i + 2] > 60) ink++;
        return { kind: t.kind, title: t.title, rows: t.rows, ink, top: t.top, height: t.height };
      });
    });
    await steps({ page, out, frame, shot, box });
  } catch (error) {
    out.failure = String((error && error.stack) || error);
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(out));
}
