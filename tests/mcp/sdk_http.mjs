// SPDX-License-Identifier: MIT
// The official MCP TypeScript SDK drives `sbio mcp --transport http` (the
// streamable HTTP transport) on the fake backend; plain fetch covers what
// the SDK never sends: foreign Host/Origin, missing or unknown sessions,
// oversized bodies, wrong methods and media types.
import http from 'node:http';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { checkCancel, checkEveryTool, checkListing, checkMissingFile, checkProgress } from './flows.mjs';
import { assert, callLog, eventually, run, scratch, serverEnv, startHttp, test } from './lib.mjs';

async function connect(url) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'sbio-mcp-http-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const post = (url, body, headers = {}) =>
  fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'f', version: '1' } } };

// A raw HTTP/1.1 request, for headers fetch will not let us set (Host).
function rawRequest(url, { method = 'POST', headers = {}, body = '' }) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method, headers }, (res) => {
      let data = '';
      res.on('data', (d) => (data += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

// Sends `head` (request line and headers) and then `chunks` while reading:
// resolves with the status line the server answers with, however early.
function rawSocket(url, head, chunks = []) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname);
    let got = '';
    sock.on('data', (d) => {
      got += d;
      const line = got.split('\r\n')[0];
      if (got.includes('\r\n')) {
        sock.destroy();
        resolve(line);
      }
    });
    sock.on('error', (e) => (got ? resolve(got.split('\r\n')[0]) : reject(e)));
    sock.write(head);
    (async () => {
      for (const c of chunks) {
        if (sock.destroyed) return;
        await new Promise((r) => sock.write(c, r));
      }
    })().catch(() => {});
  });
}

// Ends the session (DELETE) and the client: a client that only closes
// leaves its session until the server stops or needs the slot.
async function disconnect({ client, transport }) {
  await transport.terminateSession();
  await client.close();
}

let server, ctx;

test('start: bound to loopback, and it says where', async () => {
  ctx = scratch();
  server = await startHttp([], serverEnv(ctx));
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
});

test('the SDK client: listing provisions nothing; every tool in one sandbox with the tier', async () => {
  const { client, transport } = await connect(server.url);
  assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
  assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
  await checkListing(client);
  assert.deepEqual(callLog(ctx), [], 'nothing reached the backend');
  const id = await checkEveryTool(client, { tier: 'CONTAINER', backend: 'fake', python: false });
  await checkMissingFile(client, 'CONTAINER');
  assert.deepEqual(callLog(ctx).filter((l) => l.startsWith('create')), [`create ${id}`]);
  await disconnect({ client, transport });
});

test('progress over SSE, and cancellation keeps the sandbox', async () => {
  const c = await connect(server.url);
  const { client } = c;
  await checkProgress(client, 'echo a; sleep 250; echo b');
  await checkCancel(client, { tier: 'CONTAINER', ctx, longCmd: 'echo started; sleep 100000000' });
  await disconnect(c);
});

test('sessions: required, unknown is 404, ended by DELETE; the last one ending destroys the sandbox', async () => {
  const a = await connect(server.url);
  const b = await connect(server.url);
  assert.notEqual(a.transport.sessionId, b.transport.sessionId);
  const r = await a.client.callTool({ name: 'run_command', arguments: { cmd: 'echo shared > /work/s' } });
  const id = r.structuredContent.isolation.sandbox_id;
  // Both sessions share the process's one sandbox.
  const seen = await b.client.callTool({ name: 'read_file', arguments: { path: '/work/s' } });
  assert.equal(seen.structuredContent.content, 'shared\n');

  const ping = { jsonrpc: '2.0', id: 9, method: 'ping' };
  let res = await post(server.url, ping);
  assert.equal(res.status, 400, 'no Mcp-Session-Id');
  res = await post(server.url, ping, { 'Mcp-Session-Id': 'f'.repeat(32) });
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error.code, -32001);

  const aid = a.transport.sessionId;
  await a.transport.terminateSession();
  res = await post(server.url, ping, { 'Mcp-Session-Id': aid });
  assert.equal(res.status, 404, 'an ended session is unknown');
  assert.ok(!callLog(ctx).includes(`kill ${id}`), 'another session still uses it');
  await b.transport.terminateSession();
  await eventually(
    () => callLog(ctx).includes(`kill ${id}`),
    `the sandbox to be destroyed when the last client left: ${callLog(ctx).join('; ')}`,
  );
  await a.client.close();
  await b.client.close();
  // A client that comes back gets a new sandbox, lazily.
  const c = await connect(server.url);
  const again = await c.client.callTool({ name: 'list_files', arguments: {} });
  assert.notEqual(again.structuredContent.isolation.sandbox_id, id);
  await disconnect(c);
});

test('DNS rebinding: a foreign Host or Origin is refused with 403', async () => {
  const u = new URL(server.url);
  const body = JSON.stringify(INIT);
  const headers = { ...JSON_HEADERS, 'Content-Length': Buffer.byteLength(body) };
  let r = await rawRequest(server.url, { headers: { ...headers, Host: 'evil.example.com', Origin: 'http://evil.example.com' }, body });
  assert.equal(r.status, 403, r.body);
  r = await rawRequest(server.url, { headers: { ...headers, Origin: 'http://evil.example.com' }, body });
  assert.equal(r.status, 403, 'loopback Host, foreign Origin');
  r = await rawRequest(server.url, { headers: { ...headers, Origin: 'null' }, body });
  assert.equal(r.status, 403);
  r = await rawRequest(server.url, { headers: { ...headers, Host: `localhost:${u.port}`, Origin: `http://localhost:${u.port}` }, body });
  assert.equal(r.status, 200, 'its own origin');
  assert.match(r.headers['mcp-session-id'], /^[0-9a-f]{32}$/);
});

test('HTTP errors: 405, 406, 415, 404 path, 413 bounded body, 400 bad JSON and bad version', async () => {
  const u = new URL(server.url);
  let r = await fetch(server.url, { method: 'GET', headers: { Accept: 'text/event-stream' } });
  assert.equal(r.status, 405);
  assert.equal(r.headers.get('allow'), 'POST, DELETE');
  r = await fetch(server.url, { method: 'PUT', headers: JSON_HEADERS, body: '{}' });
  assert.equal(r.status, 405);
  r = await post(server.url, INIT, { Accept: 'application/json' });
  assert.equal(r.status, 406);
  r = await post(server.url, INIT, { 'Content-Type': 'text/plain' });
  assert.equal(r.status, 415);
  r = await fetch(`http://${u.host}/other`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(INIT) });
  assert.equal(r.status, 404);
  r = await post(server.url, INIT, { 'MCP-Protocol-Version': '1999-01-01' });
  assert.equal(r.status, 400);
  r = await post(server.url, '{"jsonrpc":');
  assert.equal(r.status, 400);
  assert.equal((await r.json()).error.code, -32700);
  // Over the bound: refused by its Content-Length before a byte of it is
  // read, and a chunked one as soon as it passes the bound.
  const host = `Host: ${u.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n`;
  let line = await rawSocket(server.url, `POST /mcp HTTP/1.1\r\n${host}Content-Length: 4194305\r\n\r\n`);
  assert.match(line, /^HTTP\/1\.1 413 /);
  const mib = 'y'.repeat(1024 * 1024);
  const chunk = `${(1024 * 1024).toString(16)}\r\n${mib}\r\n`;
  const chunked = `POST /mcp HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\n\r\n`;
  line = await rawSocket(server.url, chunked, [...Array(5).fill(chunk), '0\r\n\r\n']);
  assert.match(line, /^HTTP\/1\.1 413 /, 'a chunked body past the bound');
  // One that goes on and on: the connection is closed, nothing answered.
  line = await rawSocket(server.url, chunked, Array(64).fill(chunk)).catch((e) => e.code);
  assert.ok(['EPIPE', 'ECONNRESET', ''].includes(line), `connection closed: ${line}`);
  // And it still serves.
  const c = await connect(server.url);
  await c.client.ping();
  await disconnect(c);
});

test('SIGTERM with a live sandbox: destroyed, exit 143', async () => {
  const { client } = await connect(server.url);
  const r = await client.callTool({ name: 'run_command', arguments: { cmd: 'true' } });
  const id = r.structuredContent.isolation.sandbox_id;
  const pending = client.callTool({ name: 'run_command', arguments: { cmd: 'sleep 100000000' } }).catch((e) => e);
  await eventually(() => callLog(ctx).some((l) => l.includes('sleep 100000000')), 'the command to start');
  server.proc.kill('SIGTERM');
  assert.equal(await server.exited, 143);
  assert.ok(callLog(ctx).includes(`kill ${id}`), callLog(ctx).join('\n'));
  await pending;
  await client.close().catch(() => {});
});

await run();
