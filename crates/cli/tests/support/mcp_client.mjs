// Drives `tracekit mcp` with the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in xtask/js's lockfile), as an agent's
// client would, and prints what it saw as one JSON document for
// crates/cli/tests/mcp.rs to check.
//
// usage: node mcp_client.mjs SDK_DIR TRACEKIT ROOT
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [sdkDir, tracekit, root] = process.argv.slice(2);
const load = (rel) => import(pathToFileURL(join(sdkDir, 'dist/esm', rel)).href);
const { Client } = await load('client/index.js');
const { StdioClientTransport } = await load('client/stdio.js');

const transport = new StdioClientTransport({ command: tracekit, args: ['mcp', '--root', root] });
const client = new Client({ name: 'tracekit-tests', version: '1.0.0' });
await client.connect(transport);
const textOf = (r) => ({ error: Boolean(r.isError), text: r.content.map((c) => c.text ?? '').join('') });
const out = {};
out.server = client.getServerVersion();
out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, required: t.inputSchema.required }));
out.callTree = textOf(await client.callTool({
  name: 'call_tree',
  arguments: { path: 'traces/main-thread.json.gz', thread: 'CrRendererMain', max_depth: 1 },
}));
out.outside = textOf(await client.callTool({ name: 'call_tree', arguments: { path: '/etc/hostname' } }));
out.activity = textOf(await client.callTool({
  name: 'main_thread_activity',
  arguments: { path: 'traces/main-thread.json.gz', window: '1686325399,1686420609' },
}));
out.network = textOf(await client.callTool({ name: 'network_requests', arguments: { path: 'traces/page-load.json.gz' } }));
await client.close();
console.log(JSON.stringify(out));
