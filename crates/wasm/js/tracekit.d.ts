// The types of the npm package `tracekit` (tracekit.js): the DevTools
// Performance panel's thread tracks of Chrome traces and JS CPU profiles,
// computed in WebAssembly. docs/wasm.md documents the package.

/**
 * Loads the WebAssembly module: in Node from disk, in a browser from
 * `tracekit_wasm_bg.wasm` next to this module. Idempotent: every call
 * returns the same promise. `source` replaces the default location: a URL,
 * a Response, the module's bytes or a compiled `WebAssembly.Module`.
 */
export function init(source?: URL | string | Response | BufferSource | WebAssembly.Module): Promise<void>;

/** The package's version. */
export function version(): string;

/** The name of a DevTools engine whose answers tracekit gives (`LoadOptions.devtools`). */
export type DevToolsVersion = '2026-06' | '2026-10';

/** The DevTools engines tracekit can answer as. */
export interface DevToolsEngines {
  /** The engine followed when `LoadOptions.devtools` is left out: today's DevTools. */
  default: DevToolsVersion;
  /** Every engine's name, oldest first. */
  versions: DevToolsVersion[];
  /** What each name is: the DevTools build or npm package of that engine. */
  engines: Record<DevToolsVersion, string>;
}

/** The DevTools engines the `devtools` option names, and the default. */
export function devtools(): DevToolsEngines;

/**
 * The size of the WebAssembly module's memory, in bytes: it grows as
 * traces load (it never shrinks; freed memory is reused), up to 4 GB.
 */
export function memoryBytes(): number;

/** How a trace is loaded. */
export interface LoadOptions {
  /**
   * Also build the processes DevTools drops (browser, GPU, ...), as
   * `tracekit tracks --all-processes`. Default false.
   */
  allProcesses?: boolean;
  /**
   * The most track nodes one thread may have (about 100 bytes each): a
   * thread with more is not built, and asking for its tracks is an error.
   * Default 20 million, as the CLI's `--max-nodes`.
   */
  maxNodes?: number;
  /**
   * Also keep what grouping the call tree by URL, domain, subdomain or
   * frame reads of the events (`callTree({groupBy})`), as `tracekit
   * calltree --group-by` does. It costs some loading time (the args of the
   * events with a URL or a frame are read). Default false.
   */
  groupArgs?: boolean;
  /**
   * Which DevTools engine's answers to give where engines differ, as the
   * CLI's `--devtools`: '2026-10' (today's Performance panel, the engine
   * of chrome-devtools-mcp 1.11.0) or '2026-06' (`@paulirish/trace_engine`
   * 0.0.65, as Lighthouse 13.5 pins). Default '2026-10' (`devtools().default`);
   * another name is an Error listing the names.
   */
  devtools?: DevToolsVersion;
  /**
   * Run every handler of the DevTools engine tracekit has, as the
   * Performance panel does, so that `Trace.data()`, `network()`,
   * `metrics()`, `initiators()`, `warnings()` and `scripts()` can give
   * their data.
   * It costs loading time; the tracks need none of them. Default false,
   * true when `sourceMaps` or `resolveSourceMap` is given (the Scripts
   * handler knows the scripts' source map URLs, by which maps are found).
   */
  allHandlers?: boolean;
  /**
   * Source maps giving the JavaScript functions their original names,
   * URLs and positions in every view (docs/sourcemaps.md), applied when
   * the trace is loaded, after the maps an enhanced trace carries: see
   * `Trace.applySourceMaps`.
   */
  sourceMaps?: SourceMapsInput;
}

/** What `load()` takes besides a Loader's options. */
export interface LoadAsyncOptions extends LoadOptions {
  /**
   * As DevTools' `resolveSourceMap` option: asked for the map of each
   * script (`Trace.sourceMapRequests()`), it returns the map (bytes, its
   * JSON text or the object) or nothing, at once or as a promise. See
   * `Trace.resolveSourceMaps`.
   */
  resolveSourceMap?: SourceMapResolver;
  /** Called with the bytes pushed so far after each chunk of a stream. */
  onProgress?: (bytesPushed: number) => void;
}

/** One source map: its bytes, its JSON text, or the map as an object. */
export type SourceMapData = Uint8Array | ArrayBufferView | ArrayBuffer | string | object;

/**
 * Source maps, each under its URL or file name, which is how it finds its
 * script: the last segment of the script's source map URL, else the
 * map's `file`, else the script's file name with `.map` (`bundle.js` →
 * `bundle.js.map`: how a .cpuprofile's frames, which declare no source
 * map URL, find theirs).
 */
export type SourceMapsInput =
  | Record<string, SourceMapData>
  | Map<string, SourceMapData>
  | Array<[string, SourceMapData]>;

/** A script whose map `resolveSourceMap` is asked for. */
export interface SourceMapRequest {
  /** The script's id, as the trace or profile gives it. */
  scriptId: string;
  /** The script's URL. */
  scriptUrl: string;
  /**
   * Its source map URL resolved against its URL (known for a trace's
   * scripts loaded with `allHandlers: true`); null for a script only a
   * profile's frames name (a .cpuprofile's).
   */
  sourceMapUrl: string | null;
}

/** Fetches one script's map; nothing (null, undefined) when there is none. */
export type SourceMapResolver = (
  request: SourceMapRequest,
) => SourceMapData | null | undefined | Promise<SourceMapData | null | undefined>;

/** What applying source maps did. */
export interface SourceMapReport {
  /** Frames given an original location (with or without a name). */
  framesResolved: number;
  /** Of those, frames given an original name. */
  framesRenamed: number;
  /** Frames of a script some map was found for, whose position it did not map. */
  framesUnmapped: number;
  /** The maps that served a frame, by the name they were given under. */
  mapsUsed: string[];
  /**
   * What went wrong, once each: a map that is not a source map or that a
   * frame is past the end of, a map that matched no script, a script with
   * a source map URL whose map was not given, what `resolveSourceMap`
   * threw.
   */
  problems: string[];
}

/** A network request (`Trace.network()`): times in ms from the start of the trace. */
export interface NetworkRequest {
  url: string;
  requestId: string;
  /** When it was asked for. */
  start: number;
  /** When the main thread was done with it. */
  end: number;
  /** The phases, in ms. */
  queueing: number;
  stalled: number;
  dns: number;
  connect: number;
  ssl: number;
  send: number;
  /** Time to first byte. */
  wait: number;
  download: number;
  processing: number;
  /** Bytes on the wire (0 from a cache). */
  transferSize: number | null;
  bodySize: number | null;
  status: number | null;
  mimeType: string | null;
  /** `VeryHigh` ... `VeryLow`. */
  priority: string | null;
  initialPriority: string | null;
  /** `blocking`, `in_body_parser_blocking`, `non_blocking`, ... */
  renderBlocking: string | null;
  /** `parser`, `script`, `preload`, `other`, ... */
  initiatorType: string | null;
  initiatorUrl: string | null;
  fromMemoryCache: boolean;
  fromDiskCache: boolean;
  fromServiceWorker: boolean;
  protocol: string | null;
  failed: boolean;
  finished: boolean;
  /** The URLs it was redirected from, in order. */
  redirects: string[];
}

/**
 * An event that `initiators()` or `warnings()` names: its index in the
 * trace (`null` for a JS call made of samples) and what is known of it;
 * `node`, `name`, `ts` and `dur` are `null` when it is on no track.
 * Times in µs of the trace's clock, as in `tracks()`.
 */
export interface EntryFacts {
  event: number | null;
  /** Its name as `tracks` prints it (a JS call: its function's). */
  name: string | null;
  pid: number | string | null;
  tid: number | string | null;
  /** Its position among its thread's nodes (before any filter). */
  node: number | null;
  ts: number | null;
  dur: number | null;
}

/** The kinds of link between an event and its initiator. */
export type LinkKind =
  | 'timer'
  | 'animation frame'
  | 'idle callback'
  | 'post task'
  | 'web socket'
  | 'style recalc'
  | 'layout invalidation'
  | 'flow'
  | 'async call';

/** An event and what caused it (`Trace.initiators()`). */
export interface Initiator {
  event: EntryFacts;
  initiator: EntryFacts;
  /** The kind of link, when it can be told. */
  kind: LinkKind | null;
  /** An async call's task name (`requestAnimationFrame`, `Promise.then`, ...). */
  task: string | null;
}

/**
 * The insight sets of a trace (`Trace.insights()`): each set's id, URL,
 * frame, bounds (µs) and navigation, and its `model`, DevTools' model of
 * each insight by its key (docs/insights.md); `"$KEY"` values are the
 * events of `synthetic`, `"#N"` the trace's events by index.
 */
export interface InsightsDocument {
  handlers: Record<string, never>;
  insights: Array<{
    id: string;
    url: string;
    frameId: string | null;
    bounds: { min: number; max: number; range: number };
    navigation: string | null;
    model: Record<string, { state: 'pass' | 'fail' | 'informative'; title: string; [field: string]: unknown }>;
    modelErrors: string[];
  }>;
  synthetic: Record<string, unknown>;
}

/** A problem the panel flags on an entry (`Trace.warnings()`). */
export interface EntryWarning {
  warning: 'LONG_TASK' | 'FORCED_REFLOW' | 'IDLE_CALLBACK_OVER_TIME' | 'LONG_INTERACTION';
  /** The panel's words. */
  label: 'long task' | 'forced reflow' | 'idle callback over time' | 'long interaction';
  /** The entry; an interaction is its `EventTiming` begin event. */
  entry: EntryFacts;
  /** For an interaction, its DOM event type (`click`, ...). */
  interactionType: string | null;
}

/** A script of V8's source rundown (`Trace.scripts()`). */
export interface Script {
  isolate: string;
  scriptId: string;
  url: string | null;
  frame: string | null;
  sourceUrl: string | null;
  /** Its `//# sourceMappingURL`, as written. */
  sourceMapUrl: string | null;
  /** Resolved as DevTools resolves it before fetching the map. */
  resolvedSourceMapUrl: string | null;
  /** A `data:` source map that Chrome left out of the trace. */
  sourceMapUrlElided: boolean;
  hasSourceMap: boolean;
  inline: boolean;
  length: number | null;
  /** The trace holds its source text. */
  hasSource: boolean;
  /** The request that loaded it. */
  requestId: string | null;
  /** When the trace last described it, ms from the start of the trace. */
  ts: number;
}

/** A metric's value (ms from the navigation; TBT: the blocking time) and DevTools' rating. */
export interface MetricValue {
  value: number;
  rating: 'good' | 'ok' | 'bad' | 'unclassified';
}

/** A navigation of the main frame and its metrics (`Trace.metrics()`). */
export interface NavigationMetrics {
  navigationId: string | null;
  url: string | null;
  frame: string | null;
  /** When it started, ms from the start of the trace. */
  start: number;
  fp: MetricValue | null;
  fcp: MetricValue | null;
  lcp: MetricValue | null;
  /** The URL of the image the LCP painted, if an image. */
  lcpImage: string | null;
  /** The DOM node the LCP painted. */
  lcpNode: number | null;
  dcl: MetricValue | null;
  load: MetricValue | null;
  /** Total blocking time (Lighthouse's traces). */
  tbt: MetricValue | null;
  /**
   * The worst cluster of layout shifts after the navigation: its score
   * (good below 0.1, bad from 0.25), when it started (ms from the start of
   * the trace; null without shifts) and its shifts.
   */
  cls: (MetricValue & { clusterStart: number | null; shifts: number }) | null;
  /**
   * The longest interaction (INP, good up to 200 ms, bad above 500): its
   * event type, start (ms from the start of the trace) and phases (ms).
   */
  inp:
    | (MetricValue & {
        type: string;
        start: number;
        inputDelay: number;
        processing: number;
        presentationDelay: number;
      })
    | null;
}

/** What `Trace.data()` gives. */
export interface DataOptions {
  /** The handlers to give, by DevTools' name (default: every one tracekit has). */
  handlers?: string[];
  /**
   * 'json' (default): numbers and strings exact; 'conformance': the dump
   * compared with DevTools' (numbers rounded to 0.001, strings of more
   * than 1,000 characters as their length and SHA-1).
   */
  format?: 'json' | 'conformance';
}

/**
 * The handlers' data (docs/data.md): each handler's data as DevTools holds
 * it; an input event is `"#N"` (its index in the trace's event array), an
 * event a handler made is `"$KEY"` with its fields in `synthetic[KEY]`.
 */
export interface HandlerDataDocument {
  handlers: Record<string, unknown>;
  insights: unknown[];
  synthetic: Record<string, unknown>;
}

/**
 * Loads one trace fed in chunks of any size: gzip or plain, a Chrome trace
 * (JSON array or object), a `.cpuprofile` or a JS Self-Profiling trace, in
 * UTF-8 or UTF-16, as the CLI reads them. Only what the tracks need is
 * kept, never the input: a trace of any size streams through.
 */
export class Loader {
  constructor(options?: LoadOptions);
  /** Bytes pushed so far (compressed bytes, for gzip): for a progress bar. */
  readonly bytesPushed: number;
  /**
   * Feeds the next chunk. Throws an Error with the CLI's one-line message
   * if the input is already known to be bad; the loader is then unusable.
   */
  push(chunk: Uint8Array | ArrayBufferView | ArrayBuffer): void;
  /**
   * Pushes every chunk of a stream (`response.body`, `file.stream()`, a
   * Node stream or any async iterable of chunks), calling `onProgress`
   * with `bytesPushed` after each.
   */
  pushStream(
    stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | ArrayBufferView | ArrayBuffer>,
    onProgress?: (bytesPushed: number) => void,
  ): Promise<void>;
  /**
   * Ends the input and builds the tracks. Throws an Error whose message is
   * the CLI's one-line message (what `tracekit` prints after
   * `tracekit: FILE: `) on bad input.
   */
  finish(): Trace;
  /** Frees the loader without finishing. */
  free(): void;
}

/** Loads a whole input held in memory: `push` and `finish` in one call. */
export function analyze(bytes: Uint8Array | ArrayBufferView | ArrayBuffer, options?: LoadOptions): Trace;

/**
 * Loads a trace from its bytes, a ReadableStream (`response.body`,
 * `file.stream()`) or an async iterable of chunks, then applies
 * `sourceMaps` and the maps `resolveSourceMap` returns.
 */
export function load(
  input: Uint8Array | ArrayBufferView | ArrayBuffer | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options?: LoadAsyncOptions,
): Promise<Trace>;

/** One key compared by `diff()` (docs/diff.md). */
export interface DiffRow {
  key: {
    kind: 'page' | 'third-party' | 'category' | 'function' | 'event';
    /** The thread's role (`Main frame: CrRendererMain`, `Worker URL`, ...), `page` for the page's keys. */
    thread: string;
    name: string;
    quantity: 'value' | 'self' | 'total' | 'transfer';
  };
  unit: 'ms' | 'score' | 'count' | 'bytes';
  presence: 'both' | 'added' | 'removed';
  /** BASE's value (the median of its runs). */
  base: number;
  /** NEW's value (the median of its runs). */
  new: number;
  /** The change (the Hodges-Lehmann estimate with several runs). */
  delta: number;
  relative: number | null;
  stats: { p: number; p_adjusted: number; method: string; low: number; high: number; cliffs_delta: number } | null;
  /** Reported as a change (significant, with several runs per side). */
  changed: boolean;
}

/** The report of `diff()` in JSON. */
export interface DiffReport {
  base_runs: number;
  new_runs: number;
  alpha: number;
  min_ms: number;
  tested: number;
  threads: string[];
  rows: DiffRow[];
  /** The thresholds of `failOn` the report crosses, each with the first row that crosses it. */
  crossed: Array<{ threshold: string; row: DiffRow }>;
}

/** The options of `diff()`: those of `tracekit diff`. */
export interface DiffOptions {
  format?: 'json' | 'text' | 'markdown';
  /** The false discovery rate of a significant change (default 0.05). */
  alpha?: number;
  /** Keys under this many ms on both sides are not tested (default 0.5). */
  minMs?: number;
  /** `--fail-on` thresholds: `'LCP>+100ms'`, `'self:render>+10%'`, `'Bytes>+50kB'`, ... */
  failOn?: string[];
}

/**
 * Compares two traces, or two sets of runs (arrays of Traces), as
 * `tracekit diff` does. Traces loaded with `allHandlers: true` add the
 * page metrics, requests, bytes and third parties.
 */
export function diff(base: Trace | Trace[], next: Trace | Trace[], options?: DiffOptions & { format?: 'json' }): DiffReport;
export function diff(base: Trace | Trace[], next: Trace | Trace[], options: DiffOptions & { format: 'text' | 'markdown' }): string;

/**
 * Which part of the tracks to show, as the options of `tracekit tracks`.
 * A node left out takes its subtree with it.
 */
export interface TrackOptions {
  /**
   * Only the threads with this name (any case; else a unique part of one)
   * or this tid. No match, or a part of several names, is an Error that
   * lists the threads.
   */
  thread?: string | number;
  /**
   * Only nodes overlapping this window, in ms from the start of the
   * trace: `[start, end]` or `{start, end}`; `null` (or a left-out end)
   * is open.
   */
  window?: [number | null, number | null] | { start?: number | null; end?: number | null };
  /** Only the first N levels of each tree (1: the roots only). */
  maxDepth?: number;
  /** Only nodes lasting at least this many ms. */
  minDuration?: number;
}

/** A process or thread id: a number, or a string if the trace used strings. */
export type Id = number | string;

/** A node of the plain tracks (docs/json-format.md). Times in µs, in the trace's clock, rounded to the nanosecond. */
export type TrackNode =
  | {
      depth: number;
      type: 'event';
      name: string;
      cat: string;
      /** `X` for complete events (also begin/end pairs), `I` for instants. */
      ph: string;
      /** What tells the event apart from others of its name, when it has such args: `click`, `timer 3`, `onLoad http://a.test/app.js:20:43` (docs/text-format.md, "Details"). */
      detail?: string;
      ts: number;
      dur: number;
      /** The duration less the children's; null where DevTools has none. */
      self: number | null;
    }
  | {
      depth: number;
      type: 'js';
      functionName: string;
      url: string;
      scriptId: string;
      /** 0-based; null when unknown. */
      lineNumber: number | null;
      /** 0-based; null when unknown. */
      columnNumber: number | null;
      nodeId: number;
      ts: number;
      dur: number;
      self: number | null;
    };

/** What was skipped or repaired while loading (the part of `diagnostics()` in the tracks). */
export interface TrackDiagnostics {
  warnings: string[];
  skipped: { reason: string; count: number; firstExample: string }[];
}

/** The tracks as plain objects: `tracekit tracks --format json` (docs/json-format.md). */
export interface Tracks {
  format: 'tracekit-tracks';
  version: 1;
  input: 'ChromeTrace' | 'CpuProfile' | 'SelfProfiling';
  bounds: { min: number | null; max: number | null };
  processes: {
    pid: Id;
    url: string | null;
    isOnMainFrame: boolean;
    keptByDevTools: boolean;
    threads: { tid: Id; name: string | null; nodes: TrackNode[] }[];
  }[];
  diagnostics: TrackDiagnostics;
}

/** The `type` of a packed node that is a trace event. */
export const NODE_EVENT: 0;
/** The `type` of a packed node that is a JS call built from CPU samples. */
export const NODE_JS: 1;

/**
 * One thread's nodes as columns: node `i` is `depth[i]`, `ts[i]`, ...,
 * in pre-order as in the plain form. Strings are indices into
 * `PackedTracks.strings`.
 */
export interface PackedNodes {
  length: number;
  depth: Uint32Array;
  /** NODE_EVENT (0) or NODE_JS (1). */
  type: Uint8Array;
  /** The event's name, or the JS function's name ("" for anonymous ones). */
  name: Uint32Array;
  /** The event's category ("" for JS calls). */
  category: Uint32Array;
  /** The event's phase as a character code (`X` 88, `I` 73); 0 for JS calls. */
  phase: Uint8Array;
  /** For a JS call, its index in `frames`; -1 for an event. */
  frame: Int32Array;
  /** Start, µs. */
  ts: Float64Array;
  /** Duration, µs (0 for instants). */
  dur: Float64Array;
  /** Self time, µs; NaN where the plain form has null. */
  self: Float64Array;
}

/** The JS functions of a thread's CPU profile, as columns (by profile node). */
export interface PackedFrames {
  length: number;
  functionName: Uint32Array;
  url: Uint32Array;
  scriptId: Uint32Array;
  /** 0-based; NaN when unknown. */
  lineNumber: Float64Array;
  /** 0-based; NaN when unknown. */
  columnNumber: Float64Array;
  nodeId: Float64Array;
}

/**
 * The tracks as typed arrays and a string table, for viewers of big
 * traces: a dozen arrays per thread rather than an object per node
 * (docs/wasm.md, "The packed tracks").
 */
export interface PackedTracks {
  format: 'tracekit-tracks-packed';
  version: 1;
  input: 'ChromeTrace' | 'CpuProfile' | 'SelfProfiling';
  bounds: { min: number | null; max: number | null };
  processes: {
    pid: Id;
    url: string | null;
    isOnMainFrame: boolean;
    keptByDevTools: boolean;
    threads: {
      tid: Id;
      name: string | null;
      nodeCount: number;
      frameCount: number;
      nodes: PackedNodes;
      frames: PackedFrames;
    }[];
  }[];
  /** The strings the columns index. */
  strings: string[];
}

/** Which aggregated views to compute, as the options of `tracekit calltree`. */
export interface CallTreeOptions {
  /** As `TrackOptions.thread`. */
  thread?: string | number;
  /** The selected range, in ms from the start of the trace (as `TrackOptions.window`); times are clipped to it. */
  window?: TrackOptions['window'];
  /** Only the Bottom-Up (true) or only the Call Tree (false); both when left out. */
  bottomUp?: boolean;
  /**
   * Group the top level as the panel's "Group by" (`tracekit calltree
   * --group-by`): group rows come first at depth 0. The kinds that read
   * URLs and frames need a trace loaded with `{groupArgs: true}`.
   */
  groupBy?: 'none' | 'category' | 'domain' | 'subdomain' | 'url' | 'frame';
  /** Only the first N levels of each view. */
  maxDepth?: number;
}

/** A row of an aggregated view (docs/views.md, "The JSON format"). */
export interface CallTreeNode {
  id: string;
  name: string;
  url: string | null;
  line: number | null;
  column: number | null;
  /** A group row (with `groupBy`): `name` is the group's label, `id` its id. */
  group?: boolean;
  depth: number;
  /** The position of the parent row in the same list; null for a root. */
  parent: number | null;
  selfMs: number;
  totalMs: number;
  /** Threads with a CPU profile, Call Tree only. */
  samples?: number;
  selfCount?: number;
}

/** The aggregated views: `tracekit calltree --format json` (docs/views.md). */
export interface CallTree {
  window: { start: number; end: number };
  threads: {
    pid: Id;
    tid: Id;
    name: string | null;
    samples?: { inWindow: number; attributed: number; unattributed: number };
    topDown?: CallTreeNode[];
    bottomUp?: CallTreeNode[];
  }[];
}

/** What was skipped, repaired or done differently from DevTools while loading. */
export interface Diagnostics {
  input: 'ChromeTrace' | 'CpuProfile' | 'SelfProfiling';
  /** Events read. */
  events: number;
  /** Bytes of (decompressed) input. */
  inputBytes: number;
  /** Each once. */
  warnings: string[];
  /** The documented divergences from DevTools met (docs/divergences.md). */
  divergences: { name: string; example: string }[];
  skipped: { reason: string; count: number; firstExample: string }[];
  /** The lines `tracekit tracks --stats` prints, warnings included. */
  text: string;
}

/** Which flame chart to make. */
export interface ChartOptions {
  /** As `TrackOptions.thread`: only its lanes. */
  thread?: string | number;
  /** The first view, in ms from the start of the trace (as `TrackOptions.window`); nodes outside it are left out. */
  window?: TrackOptions['window'];
  /** The chart's title (a file name, say). */
  title?: string;
}

/**
 * The flame chart's data (docs/chart.md): what `chart/renderer.js` in this
 * package draws, `TracekitChart.decode(header, columns)`.
 */
export interface ChartData {
  /** The JSON header: lanes, string table, labels, colours. */
  header: {
    format: 'tracekit-chart';
    version: number;
    title: string;
    lanes: { pid: string; tid: string; process: string | null; url: string | null; thread: string | null; nodes: number }[];
    [key: string]: unknown;
  };
  /** The lanes' columns (typed arrays, little-endian), `header.bytes` long. */
  columns: Uint8Array;
  /**
   * The screenshots' JPEG images the page's tracks (`header.page`) refer
   * to by index; empty without them (a trace loaded without
   * `allHandlers: true` has no page tracks).
   */
  images: Uint8Array[];
}

/** A loaded trace. */
export class Trace {
  private constructor();
  /**
   * The data of DevTools' handlers, as `tracekit data` writes it, parsed.
   * The trace must be loaded with `allHandlers: true` (else an Error says
   * so); an unknown handler name is an Error listing the names.
   */
  data(options?: DataOptions): HandlerDataDocument;
  /** `tracekit tracks --format conformance`, byte for byte (with its newline). */
  conformance(): string;
  /**
   * The same dump handed to `onChunk` in pieces of about a megabyte, for
   * dumps larger than a JavaScript string can be (about 512 MB in V8).
   */
  conformance(onChunk: (piece: string) => void): void;
  /** The tracks as plain objects. */
  tracks(options?: TrackOptions): Tracks;
  /** The tracks as typed arrays and a string table. */
  tracksPacked(options?: TrackOptions): PackedTracks;
  /** The Call Tree and Bottom-Up of each thread. */
  callTree(options?: CallTreeOptions): CallTree;
  /** The flame chart's data, for the renderer in `chart/renderer.js`. */
  chart(options?: ChartOptions): ChartData;
  /**
   * The network requests, as `tracekit network --format json`. The trace
   * must be loaded with `allHandlers: true` (else an Error says so).
   */
  network(): NetworkRequest[];
  /**
   * The main frame's navigations and their metrics, as `tracekit metrics
   * --format json`. The trace must be loaded with `allHandlers: true`.
   */
  metrics(): NavigationMetrics[];
  /**
   * What caused each event (the arrows of the panel), as `tracekit tracks
   * --why --format json` gives each node's. Needs `allHandlers: true`.
   */
  initiators(): Initiator[];
  /** The warnings of each entry (long task, forced reflow, ...). Needs `allHandlers: true`. */
  warnings(): EntryWarning[];
  /** The scripts of V8's source rundown. Needs `allHandlers: true`. */
  scripts(): Script[];
  /**
   * DevTools' insight sets, as `tracekit insights --format json` (or
   * `conformance`) writes them, or their text. Needs `allHandlers: true`.
   */
  insights(options?: { format?: 'json' | 'conformance' }): InsightsDocument;
  insights(options: { format: 'text' }): string;
  /** What was skipped or repaired while loading, as `--stats`. */
  diagnostics(): Diagnostics;
  /**
   * Gives the JavaScript frames their original names, URLs and positions
   * from `sourceMaps`, after the maps an enhanced trace carries (unless
   * `embedded: false`), as `--source-maps` does: every view afterwards
   * shows them. Once per trace (an Error the second time). A map that
   * does not parse is a problem of the report, not an error.
   */
  applySourceMaps(sourceMaps?: SourceMapsInput, options?: { embedded?: boolean }): SourceMapReport;
  /**
   * The scripts whose maps `resolveSourceMaps` asks for, one per script
   * URL: a trace's scripts with a source map URL, then the other script
   * URLs of the profiles' frames.
   */
  sourceMapRequests(): SourceMapRequest[];
  /**
   * Asks `resolveSourceMap` for each of `sourceMapRequests()` (all at
   * once) and applies the maps it returns, after `sourceMaps` and the
   * trace's own, as `applySourceMaps`. A map returned is named by its
   * source map URL, else by the script's URL with `.map`.
   */
  resolveSourceMaps(
    resolveSourceMap: SourceMapResolver,
    options?: { sourceMaps?: SourceMapsInput; embedded?: boolean },
  ): Promise<SourceMapReport>;
  /** What applying source maps did; null before. */
  readonly sourceMapReport: SourceMapReport | null;
  /** Frees the trace's memory now (the garbage collector does it later otherwise). */
  free(): void;
}
