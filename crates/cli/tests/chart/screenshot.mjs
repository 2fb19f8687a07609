// Takes the screenshot of docs/chart.png: a chart made by `tracekit chart`,
// opened in headless Chromium, zoomed on a stretch, a bar hovered.
//
//   tracekit chart fixtures/traces/main-thread.json.gz -o /tmp/chart.html
//   node crates/cli/tests/chart/screenshot.mjs /tmp/chart.html docs/chart.png 248 362
//
// Arguments: the chart, the PNG to write, the view's start and end in ms;
// optionally the point to hover (x y, CSS px on the canvas) and the
// window's height. docs/chart-page.png is the chart of the test
// page_tracks_in_chromium (target/chart-test/page/page.html):
//
//   node crates/cli/tests/chart/screenshot.mjs target/chart-test/page/page.html docs/chart-page.png 0 2274 520 330 900
// playwright-core comes from xtask/js/node_modules (`npm ci` there).

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [html, png, startMs, endMs, hoverX, hoverY, height] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../../../xtask/js/node_modules/noop.js'));
const { chromium } = require('playwright-core');

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: height ? +height : 560 } });
  await page.goto(`file://${path.resolve(html)}`);
  await page.waitForFunction(() => window.tracekitChart);
  await page.evaluate(([s, e]) => tracekitChart.setView(s, e), [+startMs, +endMs]);
  const box = await page.evaluate(() => {
    const r = tracekitChart.canvas.getBoundingClientRect();
    return { x: r.left, y: r.top };
  });
  // A bar a few levels down, a third of the way in.
  // Screenshots of the page (if any) decoded.
  await page.waitForFunction(() => !tracekitChart.model.page || tracekitChart.bitmaps.filter(Boolean).length === tracekitChart.model.page.images.length);
  if (hoverX !== undefined) await page.mouse.move(box.x + +hoverX, box.y + +hoverY);
  else await page.mouse.move(box.x + 380, box.y + 22 + 20 + 17 * 6 + 8);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: png });
} finally {
  await browser.close();
}
