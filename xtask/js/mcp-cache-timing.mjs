#!/usr/bin/env node
// Times `tracekit mcp` answering an agent's questions about one trace, through the official
// TypeScript SDK over stdio: the first question (the trace loaded), then the same and other
// questions again (answered from the server's cache of loaded traces). Prints one line of
// Markdown for `cargo xtask bench --agent`.
//
//   node xtask/js/mcp-cache-timing.mjs TRACEKIT ROOT TRACE_NAME
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [tracekit, root, trace] = process.argv.slice(2);
if (!trace) {
  process.stderr.write('usage: node mcp-cache-timing.mjs TRACEKIT ROOT TRACE_NAME\n');
  process.exit(2);
}
const transport = new StdioClientTransport({ command: tracekit, args: ['mcp', '--root', root, '--cache-mb', '8192'] });
const client = new Client({ name: 'tracekit-bench', version: '1.0.0' });
await client.connect(transport);

async function timed(name, args) {
  const start = performance.now();
  const result = await client.callTool({ name, arguments: { path: trace, ...args } }, undefined, {
    timeout: 600_000,
  });
  const ms = performance.now() - start;
  const text = result.content.map((c) => c.text ?? '').join('');
  if (result.isError) {
    throw new Error(`${name} failed: ${text}`);
  }
  return { ms, text };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const first = await timed('trace_summary', {});
const set = /## insight set id: (\S+)/.exec(first.text)?.[1] ?? 'NO_NAVIGATION';
// Questions an agent asks next, each from the cache: medians of 5.
const questions = [
  ['trace_summary', {}],
  ['analyze_insight', { insight_set_id: set, insight_name: 'ThirdParties' }],
  ['main_thread_activity', {}],
  ['call_tree', { thread: 'CrRendererMain', max_depth: 2 }],
  ['network_requests', {}],
];
const times = new Map(questions.map(([name]) => [name, []]));
for (let i = 0; i < 5; i++) {
  for (const [name, args] of questions) times.get(name).push((await timed(name, args)).ms);
}
await client.close();
const f = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const again = [...times].map(([name, ms]) => `\`${name}\` ${f(median(ms))}`).join(', ');
console.log(`first \`trace_summary\` ${f(first.ms)} (the trace loaded); then from the cache (medians of 5): ${again}`);
