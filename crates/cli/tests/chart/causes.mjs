// Opens the chart of tests/chart/causes.json (crates/cli/tests/chart.rs,
// `causes_in_chromium`) in headless Chromium, from disk, and prints what
// it saw as one JSON object: console messages, requests, marks, the
// tracks and the ink in each, the red corner and stripes of the long
// task and its tooltip, the arrows drawn when a bar with an initiator is
// clicked (the renderer's `arrows`, and dark pixels along them), the
// memory graph's tooltip. Screenshots go to the directory it is given.
//
//   node causes.mjs CONFIG_JSON
//
// CONFIG_JSON: {"html": path, "nodeModules": dir of playwright-core,
//   "screenshots": dir}

import { withChart } from './open.mjs';

const config = JSON.parse(process.argv[2]);

await withChart(config, 'causes', {
}, async ({ page, out, frame, shot, box }) => {
  // Where a node of the first lane is (CSS px on the canvas), by name and
  // start (ms): its box, or null.
  const bar = (name, startMs) =>
    page.evaluate(
      ([name, startMs]) => {
        const chart = tracekitChart;
        const lane = chart.model.lanes[0];
        for (let i = 0; i < lane.count; i++) {
          if (chart.labels.name[lane.label[i]] === name && Math.abs(lane.start[i] / 1000 - startMs) < 1e-6) {
            const b = chart.barBox(0, i);
            return b && { node: i, ...b };
          }
        }
        return null;
      },
      [name, startMs],
    );
  // The pixels (red, green, blue) at a point of the canvas.
  const pixel = (x, y) =>
    page.evaluate(
      ([x, y]) => Array.from(tracekitChart.ctx.getImageData(Math.round(x * tracekitChart.ratio), Math.round(y * tracekitChart.ratio), 1, 1).data.slice(0, 3)),
      [x, y],
    );

  // The long task: a red corner at its top right, red stripes past 50 ms,
  // and the warning in its tooltip.
  const long = await bar('RunTask', 39);
  out.longTask = {
    node: long.node,
    corner: await pixel(long.x1 - 2, long.y + 1),
    // Inside the bar, left of the 50 ms mark: no stripes.
    before: await pixel(long.x0 + (long.x1 - long.x0) * 0.2, long.y + 8),
  };
  const stripes = await page.evaluate((b) => {
    const chart = tracekitChart;
    const from = Math.round((b.x0 + (b.x1 - b.x0) * 0.7) * chart.ratio);
    const data = chart.ctx.getImageData(from, Math.round((b.y + 2) * chart.ratio), Math.round(40 * chart.ratio), Math.round(12 * chart.ratio)).data;
    let red = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] > 200 && data[i + 1] < 120 && data[i + 2] < 120) red++;
    return red;
  }, long);
  out.longTask.redPixelsPastFifty = stripes;
  await page.mouse.move(box.x + (long.x0 + long.x1) / 2, box.y + long.y + 8);
  await frame();
  out.longTask.tip = await page.evaluate(() => document.querySelector('.tkc-tip').innerText);
  await shot('causes-hover-long-task');

  // A click on the first TimerFire: arrows from the TimerInstall that
  // initiated it, and from it to nothing else; then on the TimerInstall
  // inside it: the chain up, and down to the second TimerFire.
  const fire = await bar('TimerFire', 39.5);
  await page.mouse.click(box.x + (fire.x0 + fire.x1) / 2, box.y + fire.y + 8);
  await frame();
  const arrows = () =>
    page.evaluate(() => ({
      selected: tracekitChart.selected,
      arrows: tracekitChart.arrows,
      details: document.querySelector('.tkc-details').innerText,
    }));
  out.fire = await arrows();
  out.fire.node = fire.node;
  // Dark pixels along the first arrow's horizontal run out of the initiator.
  if (out.fire.arrows.length > 0) {
    const a = out.fire.arrows[0];
    out.fire.arrowInk = await page.evaluate((a) => {
      const chart = tracekitChart;
      const r = chart.ratio;
      const y = Math.round(a.y2 * r);
      const x0 = Math.round(Math.min(a.x1, a.x2) * r);
      const w = Math.max(1, Math.round(Math.abs(a.x2 - a.x1) * r));
      const data = chart.ctx.getImageData(x0, y - 1, w, 3).data;
      let dark = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] + data[i + 1] + data[i + 2] < 200) dark++;
      return dark;
    }, a);
  }
  await shot('causes-arrows');
  // Zoomed on the install: the arrow leaves it.
  await page.evaluate(() => tracekitChart.setView(5, 60));
  await frame();
  await shot('causes-arrows-zoomed');
  await page.evaluate(() => tracekitChart.resetView());
  await frame();
  const install = await bar('TimerInstall', 99);
  await page.mouse.click(box.x + install.x0, box.y + install.y + 8);
  await frame();
  out.install = await arrows();
  out.install.node = install.node;
  await shot('causes-arrows-chain');
  await page.keyboard.press('Escape');
  await frame();
  out.unselected = (await arrows()).arrows.length;

  // The memory graph: its tooltip at a time.
  const memory = await page.evaluate(() => {
    const chart = tracekitChart;
    const g = chart.geometry();
    const t = g.tracks.find((t) => t.kind === 'memory');
    return t && { y: t.top + g.headerHeight + 30, x: g.width / 2 };
  });
  if (memory) {
    await page.mouse.move(box.x + memory.x, box.y + memory.y);
    await frame();
    out.memoryTip = await page.evaluate(() => document.querySelector('.tkc-tip').innerText);
    await shot('causes-hover-memory');
  }
  // An extension entry's tooltip.
  const entry = await page.evaluate(() => {
    const chart = tracekitChart;
    const g = chart.geometry();
    const t = chart.tracks.findIndex((t) => t.kind === 'extension' && t.rowLabels.length > 0);
    if (t < 0) return null;
    const track = chart.tracks[t];
    const i = track.items.findIndex((it) => it.name === 'render App');
    const view = chart.view();
    const it = track.items[i];
    const x = (((it.s + it.e) / 2 / 1000 - view.start) / (view.end - view.start)) * g.width;
    return { x, y: g.tracks[t].top + g.headerHeight + track.rowOf[i] * track.rowHeight + 8 };
  });
  if (entry) {
    await page.mouse.move(box.x + entry.x, box.y + entry.y);
    await frame();
    out.entryTip = await page.evaluate(() => document.querySelector('.tkc-tip').innerText);
  }
});
