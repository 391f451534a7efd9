// One MCP session of the official TypeScript SDK's client with
// 'anvil mcp', driven by the Go test line by line on stdin: each "check"
// calls check_changes and prints the result as one JSON line; "quit" ends
// the session. The SDK is found at $MCP_CLIENT (the package directory).
import { pathToFileURL } from 'node:url';
import readline from 'node:readline';

const base = process.env.MCP_CLIENT;
const { Client } = await import(pathToFileURL(base + '/dist/index.mjs').href);
const { StdioClientTransport } = await import(pathToFileURL(base + '/dist/stdio.mjs').href);

const transport = new StdioClientTransport({
  command: process.env.ANVIL,
  args: ['mcp', '-C', process.env.WS],
  env: JSON.parse(process.env.ANVIL_ENV),
  stderr: 'inherit',
});
const client = new Client({ name: 'anvil-ci-session', version: '1.0.0' });
await client.connect(transport);
console.log(JSON.stringify({ connected: true }));

const changes = JSON.parse(process.env.CHANGES);
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (line === 'quit') break;
  try {
    const res = await client.callTool({ name: 'check_changes', arguments: { changes } });
    console.log(JSON.stringify({ isError: res.isError ?? false, structured: res.structuredContent ?? null }));
  } catch (err) {
    console.log(JSON.stringify({ failed: String(err) }));
  }
}
await client.close();
process.exit(0);
