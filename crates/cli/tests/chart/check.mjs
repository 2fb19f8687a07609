// Opens a chart made by `tracekit chart` in headless Chromium, from disk,
// uses it as a person would (hover, click, wheel, keys, drag, search) and
// prints what it saw as one JSON object, for crates/cli/tests/chart.rs to
// judge: console messages, requests, the performance marks, ink in each
// lane, tooltips, axis labels before and after zooming, search counts and
// ink, frame times; screenshots go to the directory it is given.
//
//   node check.mjs CONFIG_JSON
//
// CONFIG_JSON: {"html": path, "nodeModules": dir of playwright-core,
//   "screenshots": dir, "hover": {"thread": name, "name": s, "start":
//   "1.000 ms", "startMs": x, "endMs": y} (optional), "search": query
//   (optional), "zoomSteps": n, "loads": n (openings to time first)}

import { createRequire } from 'node:module';
import path from 'node:path';

const config = JSON.parse(process.argv[2]);
const require = createRequire(path.join(config.nodeModules, 'noop.js'));
const { chromium } = require('playwright-core');

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
  ],
});
const out = { console: [], pageErrors: [], requests: [] };
try {
  // Timings first: `loads` openings of the page, each in a fresh tab,
  // with its performance marks.
  out.loads = [];
  for (let i = 0; i < (config.loads ?? 0); i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`file://${config.html}`, { timeout: 120_000 });
    await page.waitForFunction(() => window.tracekitChart, null, { timeout: 120_000 });
    out.loads.push(
      await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))),
    );
    await page.close();
  }

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('console', (m) => out.console.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => out.pageErrors.push(String(e)));
  page.on('request', (r) => out.requests.push(r.url()));
  const url = `file://${config.html}`;
  out.url = url;
  const began = Date.now();
  await page.goto(url, { timeout: 120_000 });
  await page.waitForFunction(() => window.tracekitChart || document.getElementById('tracekit-error'), null, {
    timeout: 120_000,
  });
  out.openedMs = Date.now() - began;
  out.error = await page.evaluate(() => document.getElementById('tracekit-error')?.textContent ?? null);
  if (out.error) throw new Error(out.error);
  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  // A chart with the page's screenshots decodes them after its first
  // draw: wait for them, so that nothing moves while the test points.
  await page.waitForFunction(
    () => !tracekitChart.model.page || tracekitChart.bitmaps.filter(Boolean).length === tracekitChart.model.page.images.length,
    null,
    { timeout: 30_000 },
  );
  await frame();
  out.marks = await page.evaluate(() =>
    Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])),
  );
  const shot = (name) => page.screenshot({ path: path.join(config.screenshots, `${name}.png`) });
  await shot('opened');

  const canvasBox = await page.evaluate(() => {
    const r = tracekitChart.canvas.getBoundingClientRect();
    return { x: r.left, y: r.top };
  });
  const state = () =>
    page.evaluate(() => ({
      view: tracekitChart.view(),
      axis: tracekitChart.canvas.dataset.axis,
      tip: document.querySelector('.tkc-tip').style.display === 'none' ? null : document.querySelector('.tkc-tip').innerText,
      details: document.querySelector('.tkc-details').innerText,
      count: document.querySelector('.tkc-count').textContent,
    }));

  // Ink (how far from white, summed over the channels) in a band of the
  // canvas, in CSS pixels.
  const ink = (top, bottom) =>
    page.evaluate(
      ([top, bottom]) => {
        const chart = tracekitChart;
        const ratio = chart.ratio;
        const y0 = Math.max(0, Math.round(top * ratio));
        const y1 = Math.min(chart.canvas.height, Math.round(bottom * ratio));
        if (y1 <= y0) return { pixels: 0, ink: 0 };
        const data = chart.ctx.getImageData(0, y0, chart.canvas.width, y1 - y0).data;
        let pixels = 0;
        let sum = 0;
        for (let i = 0; i < data.length; i += 4) {
          const d = 765 - data[i] - data[i + 1] - data[i + 2];
          // Grid lines (#eceef1) are background too.
          if (d > 40) {
            pixels++;
            sum += d;
          }
        }
        return { pixels, ink: sum };
      },
      [top, bottom],
    );

  // Every lane that is not folded has bars drawn under its header.
  out.lanes = [];
  const lanes = await page.evaluate(() =>
    tracekitChart.model.lanes.map((l, i) => ({ thread: l.thread, tid: l.tid, folded: tracekitChart.collapsed[i] })),
  );
  for (let i = 0; i < lanes.length; i++) {
    await page.evaluate((i) => tracekitChart.scrollToLane(i), i);
    const g = await page.evaluate((i) => tracekitChart.geometry().lanes[i], i);
    const bars = await ink(g.top + 20, g.top + g.height);
    out.lanes.push({ ...lanes[i], levels: g.levels, barPixels: bars.pixels });
  }
  await page.evaluate(() => tracekitChart.scrollToLane(0));

  // Hover: zoom on the node (10% margins), then down its lane's levels at
  // its middle until the tooltip names it.
  if (config.hover) {
    const h = config.hover;
    const index = await page.evaluate((t) => tracekitChart.model.lanes.findIndex((l) => l.thread === t), h.thread);
    await page.evaluate(([s, e]) => tracekitChart.setView(s - (e - s) * 0.1, e + (e - s) * 0.1), [h.startMs, h.endMs]);
    await page.evaluate((i) => tracekitChart.scrollToLane(i), index);
    await frame();
    const g = await page.evaluate(() => tracekitChart.geometry());
    const lane = g.lanes[index];
    const x = g.width / 2;
    out.tooltips = [];
    for (let level = 0; level < lane.levels; level++) {
      const y = lane.top + g.headerHeight + level * g.rowHeight + g.barHeight / 2;
      if (y > g.height) break;
      await page.mouse.move(canvasBox.x + x, canvasBox.y + y);
      const s = await state();
      out.tooltips.push(s.tip);
      if (s.tip && s.tip.split('\n')[0] === h.name && s.tip.includes(`start ${h.start}`)) {
        await frame();
        await shot('hover');
        await page.mouse.click(canvasBox.x + x, canvasBox.y + y);
        await frame();
        out.pinned = (await state()).details;
        await shot('pinned');
        break;
      }
    }
    await page.mouse.move(canvasBox.x + 5, 5);
  }

  // Zoom and pan: the wheel, the keys, a drag; reset.
  await page.keyboard.press('0');
  await frame();
  out.zoom = { reset: await state() };
  const middle = { x: canvasBox.x + 640, y: canvasBox.y + 300 };
  await page.mouse.move(middle.x, middle.y);
  for (let i = 0; i < (config.zoomSteps ?? 5); i++) {
    await page.mouse.wheel(0, -200);
    await frame();
  }
  out.zoom.wheel = await state();
  await shot('zoomed');
  await page.keyboard.press('w');
  await frame();
  out.zoom.w = await state();
  await page.keyboard.press('s');
  await page.keyboard.press('s');
  await frame();
  out.zoom.s = await state();
  await page.keyboard.press('d');
  await frame();
  out.zoom.d = await state();
  await page.keyboard.press('a');
  await page.keyboard.press('a');
  await frame();
  out.zoom.a = await state();
  await page.mouse.move(middle.x, middle.y);
  await page.mouse.down();
  await page.mouse.move(middle.x - 100, middle.y, { steps: 5 });
  await page.mouse.up();
  await frame();
  out.zoom.drag = await state();
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -100);
  await page.keyboard.up('Control');
  await frame();
  out.zoom.pinch = await state();
  await page.keyboard.press('0');
  await frame();
  out.zoom.again = await state();

  // Search: matches counted, everything else faded.
  if (config.search) {
    await page.mouse.move(canvasBox.x + 5, 5);
    await page.evaluate(() => tracekitChart.scrollToLane(0));
    await frame();
    const height = await page.evaluate(() => tracekitChart.height);
    out.search = { before: await ink(22, height) };
    await page.fill('.tkc-bar input[type=search]', config.search);
    await page.waitForFunction(() => document.querySelector('.tkc-count').textContent !== '', null, { timeout: 10_000 });
    await frame();
    out.search.after = await ink(22, height);
    out.search.count = (await state()).count;
    await shot('search');
    await page.press('.tkc-bar input[type=search]', 'Enter');
    await frame();
    out.search.next = await state();
    await shot('search-next');
  }

  // "Show all events": the events the panel does not draw get levels too.
  await page.evaluate(() => tracekitChart.scrollToLane(0));
  const levels = () => page.evaluate(() => tracekitChart.geometry().lanes.map((l) => l.levels));
  out.showAll = { before: await levels() };
  await page.click('.tkc-bar input[type=checkbox]');
  await frame();
  out.showAll.after = await levels();
  out.showAll.count = (await state()).count;
  await shot('show-all');
  await page.click('.tkc-bar input[type=checkbox]');
  await frame();

  // Frame times: zooming in and out around the middle, after the first draw.
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press('0');
  await page.evaluate(() => {
    tracekitChart.frameTimes.length = 0;
  });
  await page.mouse.move(middle.x, middle.y);
  for (let i = 0; i < 20; i++) {
    await page.mouse.wheel(0, i < 10 ? -300 : 300);
    await frame();
  }
  out.frameTimes = await page.evaluate(() => tracekitChart.frameTimes.slice());
} catch (error) {
  out.failure = String(error && error.stack || error);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
