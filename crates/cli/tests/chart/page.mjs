// Opens a chart with page tracks (crates/cli/tests/chart.rs,
// `page_tracks_in_chromium`) in headless Chromium, from disk, and prints
// what it saw as one JSON object: console messages, requests, marks, the
// tracks and the ink in each, the tooltips and screenshot popups of a
// hovered request, interaction and lane, the pinned details of a click, a
// fold. Screenshots go to the directory it is given.
//
//   node page.mjs CONFIG_JSON
//
// CONFIG_JSON: {"html": path, "nodeModules": dir of playwright-core,
//   "screenshots": dir}

import { withChart } from './open.mjs';

const config = JSON.parse(process.argv[2]);

await withChart(config, 'page', {
  ready: async (page, out) => {
    // The images are decoded after the first draw.
    await page.waitForFunction(
      () => tracekitChart.bitmaps.filter(Boolean).length === tracekitChart.model.page.images.length,
      null,
      { timeout: 30_000 },
    );
    out.images = await page.evaluate(() => tracekitChart.bitmaps.filter(Boolean).length);
  },
}, async ({ page, out, frame, shot, box }) => {
  // Where an item of a track is on the canvas, at time `at` (µs from
  // the origin) or its middle.
  const place = (kind, index, at) =>
    page.evaluate(
      ([kind, index, at]) => {
        const chart = tracekitChart;
        const g = chart.geometry();
        const t = chart.tracks.findIndex((track) => track.kind === kind);
        const track = chart.tracks[t];
        const item = track.items[index];
        const time = at ?? (item.s + item.e) / 2;
        const view = chart.view();
        const x = ((time / 1000 - view.start) / (view.end - view.start)) * g.width;
        const y = g.tracks[t].top + g.headerHeight + track.rowOf[index] * track.rowHeight + g.barHeight / 2;
        return { x, y, timeUs: time };
      },
      [kind, index, at],
    );
  const hover = async (where) => {
    await page.mouse.move(box.x + where.x, box.y + where.y);
    await frame();
    return page.evaluate(() => {
      const tip = document.querySelector('.tkc-tip');
      const popup = document.querySelector('.tkc-shot');
      return {
        tip: tip.style.display === 'none' ? null : tip.innerText,
        shot: popup.style.display === 'none' ? null : Number(popup.dataset.time),
      };
    });
  };
  out.hover = {};
  // The third request (by start), in its download.
  const request = await page.evaluate(() => {
    const track = tracekitChart.tracks.find((t) => t.kind === 'network');
    const r = track.items[2];
    return (r.downloadStart + r.finish) / 2;
  });
  const requestAt = await place('network', 2, request);
  out.hover.request = { ...(await hover(requestAt)), timeUs: requestAt.timeUs };
  await shot('page-hover-request');
  await page.mouse.click(box.x + requestAt.x, box.y + requestAt.y);
  await frame();
  out.pinned = await page.evaluate(() => document.querySelector('.tkc-details').innerText);
  const interactionAt = await place('interactions', 1);
  out.hover.interaction = { ...(await hover(interactionAt)), timeUs: interactionAt.timeUs };
  await shot('page-hover-interaction');
  const laneAt = await page.evaluate(() => {
    const g = tracekitChart.geometry();
    return { x: g.width / 3, y: Math.min(g.height - 10, g.lanes[0].top + g.headerHeight + 4) };
  });
  out.hover.lane = await hover(laneAt);
  await page.mouse.move(box.x + 5, 5);

  // Folding the Network track.
  const before = await page.evaluate(() => tracekitChart.geometry());
  const network = before.tracks[0];
  await page.mouse.click(box.x + 40, box.y + network.top + 8);
  await frame();
  const after = await page.evaluate(() => tracekitChart.geometry());
  out.fold = { collapsed: after.tracks[0].collapsed, lanesTopBefore: before.lanesTop, lanesTop: after.lanesTop };
  await shot('page-folded');
});
