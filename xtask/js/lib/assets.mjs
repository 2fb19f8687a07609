// Generated assets the recorder's static server hands to the workload pages (record.mjs): PNG
// images of any size and a small TrueType font. They are made here, by code, so that the pages
// need no binary files and no third-party ones (no font or image is copied from anywhere); both
// are deterministic, so two recordings load the same bytes.
//
//   png(width, height)  a valid 8-bit RGB PNG (zlib from node), a gradient with a grid on it
//   ttf()               a valid TrueType font, "TracekitBlocks": one glyph per printable ASCII
//                       character, each made of rectangles whose sizes depend on the character,
//                       so text set in it looks (and measures) clearly different from the
//                       fallback font; Chromium's font sanitizer (OTS) accepts it

import zlib from 'node:zlib';

// ---------------------------------------------------------------------------------------
// CRC-32 (PNG chunks). node's zlib.crc32 exists only from Node 22.2, and the recorder may run
// on an older Node, so the usual table-driven one is written out.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf) {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// ---------------------------------------------------------------------------------------
// PNG.

function pngChunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

// A width x height RGB image: a diagonal colour gradient (hue from the size, so that images of
// different sizes differ) with a 40 px grid. Every scanline uses PNG filter 0 (None); deflate
// still compresses the gradient well (a 1200x800 image is some tens of kB).
export function png(width, height) {
  const w = Math.max(1, Math.min(4000, width | 0));
  const h = Math.max(1, Math.min(4000, height | 0));
  const seed = (w * 31 + h * 17) % 256;
  const raw = Buffer.alloc((w * 3 + 1) * h);
  let o = 0;
  for (let y = 0; y < h; y++) {
    raw[o++] = 0; // filter type None
    for (let x = 0; x < w; x++) {
      const grid = x % 40 === 0 || y % 40 === 0;
      raw[o++] = grid ? 255 : (seed + (x * 255) / w) & 0xff;
      raw[o++] = grid ? 255 : ((y * 255) / h) & 0xff;
      raw[o++] = grid ? 255 : (255 - seed + ((x + y) * 128) / (w + h)) & 0xff;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour (RGB)
  ihdr[10] = 0; // compression: deflate
  ihdr[11] = 0; // filter method 0
  ihdr[12] = 0; // no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---------------------------------------------------------------------------------------
// TrueType. The smallest table set a browser takes (OTS requires cmap, head, hhea, hmtx, maxp,
// name, OS/2 and post, plus glyf and loca for TrueType outlines); glyphs are simple glyphs of
// on-curve points only, no hinting instructions.

const UPEM = 1000;
const ASCENT = 800;
const DESCENT = 200;
const FIRST_CHAR = 0x20;
const LAST_CHAR = 0x7e;

// Big-endian writer with the field widths the tables use.
class Writer {
  constructor() { this.bytes = []; }
  u8(v) { this.bytes.push(v & 0xff); return this; }
  u16(v) { return this.u8(v >>> 8).u8(v); }
  i16(v) { return this.u16(v & 0xffff); }
  u32(v) { return this.u16(v >>> 16).u16(v & 0xffff); }
  tag(s) { for (const ch of s) this.u8(ch.charCodeAt(0)); return this; }
  buffer() { return Buffer.from(this.bytes); }
}

// The rectangles ([x0, y0, x1, y1], font units) of the glyph of character code `c`.
// .notdef (c = -1) is a hollow box; space is empty; every other character is a stem whose
// height says its class (capital, digit, lower case with or without ascender or descender),
// with a second, shorter bar beside it whose width varies with the code.
function glyphRects(c) {
  if (c === -1) return [[50, 0, 550, 700], [100, 50, 500, 650]]; // second one is the hole
  if (c === 0x20) return [];
  const ch = String.fromCharCode(c);
  let bottom = 0;
  let top = 500;
  if (/[A-Z0-9]/.test(ch)) top = 700;
  else if (/[bdfhklt]/.test(ch)) top = 750;
  else if (/[gjpqy]/.test(ch)) bottom = -DESCENT;
  else if (/[^a-z]/.test(ch)) { bottom = 100; top = 100 + 60 * ((c % 7) + 1); }
  const barWidth = 80 + 40 * (c % 6);
  return [
    [60, bottom, 160, top],
    [200, bottom, 200 + barWidth, bottom + Math.round((top - bottom) * 0.6)],
  ];
}

function advanceOf(c) {
  if (c === -1) return 600;
  if (c === 0x20) return 300;
  return 200 + 80 + 40 * (c % 6) + 60;
}

// One simple glyph: each rectangle a 4-point contour. Outer contours go clockwise (TrueType's
// filled direction); for .notdef the second rectangle goes counter-clockwise, making a hole.
function glyphData(c) {
  const rects = glyphRects(c);
  if (rects.length === 0) return { data: Buffer.alloc(0), bbox: null, points: 0, contours: 0 };
  const pts = [];
  rects.forEach(([x0, y0, x1, y1], i) => {
    const hole = c === -1 && i === 1;
    const contour = hole
      ? [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
      : [[x0, y0], [x0, y1], [x1, y1], [x1, y0]];
    pts.push(...contour);
  });
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const bbox = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  const w = new Writer();
  w.i16(rects.length);
  bbox.forEach((v) => w.i16(v));
  rects.forEach((_, i) => w.u16(i * 4 + 3)); // endPtsOfContours
  w.u16(0); // no instructions
  pts.forEach(() => w.u8(0x01)); // on curve; x and y as int16 deltas
  let prev = 0;
  for (const [x] of pts) { w.i16(x - prev); prev = x; }
  prev = 0;
  for (const [, y] of pts) { w.i16(y - prev); prev = y; }
  const data = w.buffer();
  // Glyphs are 2-byte aligned for the short loca format.
  return { data: data.length % 2 ? Buffer.concat([data, Buffer.alloc(1)]) : data, bbox, points: pts.length, contours: rects.length };
}

function tableChecksum(buf) {
  const padded = Buffer.concat([buf, Buffer.alloc((4 - (buf.length % 4)) % 4)]);
  let sum = 0;
  for (let i = 0; i < padded.length; i += 4) sum = (sum + padded.readUInt32BE(i)) >>> 0;
  return sum;
}

function nameTable(records) {
  // Windows platform, Unicode BMP, US English; records sorted by name id as OTS wants.
  const strings = records.map(([, s]) => Buffer.from(s, 'utf16le').swap16());
  const w = new Writer();
  w.u16(0).u16(records.length).u16(6 + 12 * records.length);
  let off = 0;
  records.forEach(([id], i) => {
    w.u16(3).u16(1).u16(0x409).u16(id).u16(strings[i].length).u16(off);
    off += strings[i].length;
  });
  return Buffer.concat([w.buffer(), ...strings]);
}

let fontCache = null;

export function ttf() {
  if (fontCache) return fontCache;
  // Glyph 0 is .notdef, then one glyph per character FIRST_CHAR..LAST_CHAR in order, so that
  // a single cmap segment with a constant delta maps them.
  const codes = [-1];
  for (let c = FIRST_CHAR; c <= LAST_CHAR; c++) codes.push(c);
  const glyphs = codes.map(glyphData);
  const advances = codes.map(advanceOf);
  const numGlyphs = glyphs.length;
  const boxes = glyphs.filter((g) => g.bbox).map((g) => g.bbox);
  const xMin = Math.min(...boxes.map((b) => b[0]));
  const yMin = Math.min(...boxes.map((b) => b[1]));
  const xMax = Math.max(...boxes.map((b) => b[2]));
  const yMax = Math.max(...boxes.map((b) => b[3]));

  const glyf = Buffer.concat(glyphs.map((g) => g.data));
  const loca = new Writer();
  let off = 0;
  for (const g of glyphs) { loca.u16(off / 2); off += g.data.length; }
  loca.u16(off / 2);

  const head = new Writer()
    .u32(0x00010000).u32(0x00010000) // version, fontRevision
    .u32(0) // checkSumAdjustment, set at the end
    .u32(0x5f0f3cf5) // magic
    .u16(0x000b) // flags: baseline at y=0, lsb at x=0, integer ppem
    .u16(UPEM)
    .u32(0).u32(0xdf6d1c00).u32(0).u32(0xdf6d1c00) // created, modified (2022-09-01, fixed)
    .i16(xMin).i16(yMin).i16(xMax).i16(yMax)
    .u16(0) // macStyle
    .u16(8) // lowestRecPPEM
    .i16(2) // fontDirectionHint
    .i16(0) // indexToLocFormat: short
    .i16(0) // glyphDataFormat
    .buffer();

  const lsbs = glyphs.map((g) => (g.bbox ? g.bbox[0] : 0));
  const rsbs = glyphs.map((g, i) => (g.bbox ? advances[i] - g.bbox[2] : 0));
  const hhea = new Writer()
    .u32(0x00010000)
    .i16(ASCENT).i16(-DESCENT).i16(0) // ascender, descender, lineGap
    .u16(Math.max(...advances))
    .i16(Math.min(...lsbs)).i16(Math.min(...rsbs)).i16(xMax)
    .i16(1).i16(0).i16(0) // caret: vertical
    .i16(0).i16(0).i16(0).i16(0) // reserved
    .i16(0) // metricDataFormat
    .u16(numGlyphs) // numberOfHMetrics
    .buffer();

  const hmtx = new Writer();
  glyphs.forEach((g, i) => hmtx.u16(advances[i]).i16(lsbs[i]));

  const maxp = new Writer()
    .u32(0x00010000).u16(numGlyphs)
    .u16(Math.max(...glyphs.map((g) => g.points))).u16(Math.max(...glyphs.map((g) => g.contours)))
    .u16(0).u16(0) // composite points, contours
    .u16(2) // maxZones
    .u16(0).u16(0).u16(0).u16(0).u16(0).u16(0) // twilight, storage, fdefs, idefs, stack, instr. size
    .u16(0).u16(0) // component elements, depth
    .buffer();

  // cmap: one Windows Unicode BMP subtable, format 4: the segment FIRST_CHAR..LAST_CHAR with
  // delta (1 - FIRST_CHAR) and the required final 0xFFFF segment.
  const segs = [[FIRST_CHAR, LAST_CHAR, 1 - FIRST_CHAR], [0xffff, 0xffff, 1]];
  const sub = new Writer();
  const segX2 = segs.length * 2;
  sub.u16(4).u16(16 + segs.length * 8).u16(0).u16(segX2).u16(4).u16(1).u16(segX2 - 4);
  segs.forEach((s) => sub.u16(s[1]));
  sub.u16(0);
  segs.forEach((s) => sub.u16(s[0]));
  segs.forEach((s) => sub.i16(s[2]));
  segs.forEach(() => sub.u16(0));
  const cmap = Buffer.concat([new Writer().u16(0).u16(1).u16(3).u16(1).u32(12).buffer(), sub.buffer()]);

  const name = nameTable([
    [1, 'TracekitBlocks'],
    [2, 'Regular'],
    [3, 'tracekit: TracekitBlocks Regular 1.0'],
    [4, 'TracekitBlocks Regular'],
    [5, 'Version 1.0'],
    [6, 'TracekitBlocks-Regular'],
  ]);

  const avg = Math.round(advances.reduce((a, b) => a + b, 0) / advances.length);
  const os2 = new Writer()
    .u16(4).i16(avg).u16(400).u16(5).u16(0) // version, xAvgCharWidth, weight, width, fsType
    .i16(650).i16(600).i16(0).i16(75) // subscript x/y size, x/y offset
    .i16(650).i16(600).i16(0).i16(350) // superscript
    .i16(50).i16(250) // strikeout size, position
    .i16(0); // sFamilyClass
  for (let i = 0; i < 10; i++) os2.u8(0); // panose: any
  os2.u32(1).u32(0).u32(0).u32(0) // ulUnicodeRange: Basic Latin
    .tag('TKIT')
    .u16(0x0040) // fsSelection: REGULAR
    .u16(FIRST_CHAR).u16(LAST_CHAR)
    .i16(ASCENT).i16(-DESCENT).i16(0) // typo ascender, descender, line gap
    .u16(ASCENT).u16(DESCENT) // win ascent, descent
    .u32(1).u32(0) // code pages: Latin 1
    .i16(500).i16(700) // x height, cap height
    .u16(0).u16(0x20).u16(1); // default char, break char, max context

  const post = new Writer()
    .u32(0x00030000).u32(0) // version 3 (no glyph names), italic angle
    .i16(-100).i16(50) // underline position, thickness
    .u32(0).u32(0).u32(0).u32(0).u32(0) // fixed pitch, memory hints
    .buffer();

  const tables = [
    ['OS/2', os2.buffer()],
    ['cmap', cmap],
    ['glyf', glyf],
    ['head', head],
    ['hhea', hhea],
    ['hmtx', hmtx.buffer()],
    ['loca', loca.buffer()],
    ['maxp', maxp],
    ['name', name],
    ['post', post],
  ]; // sorted by tag, as the table directory must be
  const n = tables.length;
  const pow2 = 2 ** Math.floor(Math.log2(n));
  const dir = new Writer().u32(0x00010000).u16(n).u16(pow2 * 16).u16(Math.log2(pow2)).u16(n * 16 - pow2 * 16);
  let offset = 12 + 16 * n;
  const bodies = [];
  let headOffset = 0;
  for (const [tag, buf] of tables) {
    dir.tag(tag).u32(tableChecksum(buf)).u32(offset).u32(buf.length);
    if (tag === 'head') headOffset = offset;
    const padded = Buffer.concat([buf, Buffer.alloc((4 - (buf.length % 4)) % 4)]);
    bodies.push(padded);
    offset += padded.length;
  }
  const font = Buffer.concat([dir.buffer(), ...bodies]);
  font.writeUInt32BE((0xb1b0afba - tableChecksum(font)) >>> 0, headOffset + 8);
  fontCache = font;
  return font;
}
