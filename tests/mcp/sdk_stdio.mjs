// SPDX-License-Identifier: MIT
// The official MCP TypeScript SDK drives `sbio mcp` over stdio on the fake
// backend, whose call log proves what was provisioned and when. Also raw
// JSON lines, for what the SDK never sends (old revisions, floors, signals).
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { checkCancel, checkEveryTool, checkListing, checkMissingFile, checkProgress, checkTruncation } from './flows.mjs';
import {
  assert,
  auditEvents,
  callLog,
  eventually,
  INIT,
  rawSession,
  run,
  SBIO,
  scratch,
  serverEnv,
  spawnServer,
  test,
} from './lib.mjs';

async function connect(ctx, args = []) {
  const transport = new StdioClientTransport({
    command: SBIO,
    args: ['mcp', ...args],
    env: serverEnv(ctx),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sbio-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const creates = (ctx) => callLog(ctx).filter((l) => l.startsWith('create '));

test('initialize negotiates the SDK revision; listing tools provisions nothing', async () => {
  const ctx = scratch();
  const { client } = await connect(ctx);
  assert.equal(client.getServerVersion().name, 'sbio-mcp');
  assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: false } });
  assert.match(client.getInstructions(), /isolation tier CONTAINER/);
  await checkListing(client);
  await client.ping();
  // No plan, no create: nothing at all reached the backend.
  assert.deepEqual(callLog(ctx), []);
  assert.ok(!auditEvents(ctx).some((e) => e.event.startsWith('create')), 'no create was even requested');
  await client.close();
  assert.deepEqual(callLog(ctx), [], 'and nothing to tear down');
});

test('every tool in one sandbox, the tier in every result, destroyed on disconnect', async () => {
  const ctx = scratch();
  const { client, transport } = await connect(ctx);
  const id = await checkEveryTool(client, { tier: 'CONTAINER', backend: 'fake', python: false });
  await checkMissingFile(client, 'CONTAINER');
  await checkTruncation(client);
  assert.deepEqual(creates(ctx), [`create ${id}`], 'created once, lazily, and reused');
  const pid = transport.pid;
  await client.close(); // closes stdin: the client went away
  await eventually(() => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, 'the server to exit');
  assert.ok(callLog(ctx).includes(`kill ${id}`), `destroyed: ${callLog(ctx)}`);
});

test('progress notifications while a command runs', async () => {
  const ctx = scratch();
  const { client } = await connect(ctx);
  await checkProgress(client, 'echo start; sleep 250; echo end'); // 2.5 s at the fake's time scale
  await client.close();
});

test('a cancelled call kills its command and keeps the sandbox', async () => {
  const ctx = scratch();
  const { client } = await connect(ctx);
  await checkCancel(client, { tier: 'CONTAINER', ctx, longCmd: 'echo started; sleep 100000000' });
  assert.equal(creates(ctx).length, 1);
  assert.ok(!callLog(ctx).some((l) => l.startsWith('kill')), 'the sandbox was not killed');
  await client.close();
});

test('EOF with a live sandbox: destroyed, exit 0', async () => {
  const ctx = scratch();
  const s = rawSession([], serverEnv(ctx));
  s.send(INIT());
  await s.next();
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_command', arguments: { cmd: 'true' } } });
  assert.equal((await s.next()).result.isError, false);
  // A command still running when the client goes: it ends with the sandbox.
  s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'run_command', arguments: { cmd: 'sleep 100000000' } } });
  await eventually(() => callLog(ctx).some((l) => l.includes('sleep 100000000')), 'the command to start');
  s.proc.stdin.end();
  assert.equal(await s.exited, 0);
  assert.ok(callLog(ctx).includes('kill fake-0001'), callLog(ctx).join('\n'));
});

for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
]) {
  test(`${signal} with a live sandbox: destroyed, exit ${code}`, async () => {
    const ctx = scratch();
    const s = rawSession([], serverEnv(ctx));
    s.send(INIT());
    await s.next();
    s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_command', arguments: { cmd: 'sleep 100000000' } } });
    await eventually(() => callLog(ctx).some((l) => l.includes('sleep 100000000')), 'the command to start');
    s.proc.kill(signal);
    assert.equal(await s.exited, code);
    assert.ok(callLog(ctx).includes('kill fake-0001'), callLog(ctx).join('\n'));
    assert.ok(!s.stdout.includes('"id":2'), `the call cut short is not answered: ${s.stdout}`);
  });
}

test('the floor is decided before serving: exit 78, nothing created', async () => {
  for (const [args, extra] of [
    [['--require-isolation', 'microvm'], ''],
    [[], 'require_isolation: gvisor\n'], // the operator's fleet floor
    [['--require-isolation', 'container'], 'require_isolation: gvisor\n'], // cannot be lowered
  ]) {
    const ctx = scratch(extra);
    const s = spawnServer(args, serverEnv(ctx));
    s.proc.stdin.end();
    assert.equal(await s.exited, 78, s.stderr);
    assert.match(s.stderr, /\[SBX_E1000\] backend fake cannot meet the required isolation (MICROVM|GVISOR): it offers CONTAINER/);
    assert.match(s.stderr, /hint: choose a backend whose tier is at least/);
    assert.equal(s.stdout, '', 'no MCP message: the client never gets a session');
    assert.deepEqual(callLog(ctx), [], 'nothing provisioned, not even a plan');
  }
  // A floor the backend meets: it serves, and the first call still checks
  // the sandbox's observed mechanism against it.
  const ctx = scratch('require_isolation: container\n');
  const { client } = await connect(ctx);
  const r = await client.callTool({ name: 'sandbox_info', arguments: {} });
  assert.equal(r.structuredContent.required_tier, 'CONTAINER');
  await client.close();
});

// A backend that declares no filesystem (the API tests' planrunc: run_command
// only; it counts each operation in a file of TESTBK_DIR). A file tool's
// first call declares the capability to the create, so the library's gate
// refuses it before the backend is even asked to plan: no sandbox is made
// (and billed) for an operation that cannot run.
test('a file tool on a backend without files is refused before any sandbox exists', async () => {
  const backends = process.env.SBIO_TEST_API_BACKENDS;
  assert.ok(backends, 'SBIO_TEST_API_BACKENDS names the API tests\' backends');
  const ctx = scratch('', `backend_path: [${backends}]\n`);
  const ran = (op) => fs.existsSync(path.join(ctx.dir, op)) && fs.readFileSync(path.join(ctx.dir, op), 'utf8').length;
  const transport = new StdioClientTransport({
    command: SBIO,
    args: ['mcp', '--backend', 'planrunc://'],
    env: serverEnv(ctx, { TESTBK_DIR: ctx.dir }),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sbio-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  for (const [name, args] of [
    ['read_file', { path: '/work/a' }],
    ['write_file', { path: '/work/a', content: 'x' }],
    ['list_files', {}],
  ]) {
    const r = await client.callTool({ name, arguments: args });
    const text = r.content[0].text;
    assert.equal(r.isError, true, `${name}: ${text}`);
    assert.match(text, /^\[SBX_E1101\] CapabilityNotSupported: backend planrunc does not support filesystem/, name);
    assert.match(text, /no sandbox yet/, `${name} made no sandbox: ${text}`);
  }
  assert.equal(ran('create'), false, 'no create reached the backend');
  assert.equal(ran('plan'), false, 'refused from metadata, before the backend planned');
  const denied = auditEvents(ctx).filter((e) => e.event === 'create_denied');
  assert.equal(denied.length, 3, JSON.stringify(auditEvents(ctx)));
  for (const e of denied) assert.ok(e.required_capabilities.includes('filesystem'), JSON.stringify(e));
  assert.ok(!auditEvents(ctx).some((e) => e.event === 'created'));
  // A command needs no files: it gets the sandbox, and a file tool after it
  // is refused by the operation, on that sandbox, without another create.
  const ok = await client.callTool({ name: 'run_command', arguments: { cmd: 'true' } });
  assert.equal(ok.isError, false, ok.content[0].text);
  const late = await client.callTool({ name: 'read_file', arguments: { path: '/work/a' } });
  assert.match(late.content[0].text, /does not support filesystem[\s\S]*sandbox tb-1\)/);
  assert.equal(ran('create'), 1, 'one create, for run_command');
  await client.close();
});

test('the fixed configuration is what sandbox_info reports, and no tool takes it', async () => {
  for (const [args, timeout, egress] of [
    [['--timeout', '77', '--egress', 'allow'], 77, 'allow'],
    [['--backend', 'fake://?timeout=42', '--timeout', '77'], 42, 'deny'], // the URI's wins, as in the library
  ]) {
    const ctx = scratch();
    const { client } = await connect(ctx, args);
    const r = await client.callTool({ name: 'sandbox_info', arguments: {} });
    assert.equal(r.structuredContent.timeout_s, timeout);
    assert.deepEqual(r.structuredContent.network, { egress });
    const bad = await client.callTool({ name: 'sandbox_info', arguments: { backend: 'docker://' } });
    assert.equal(bad.isError, true, 'no argument changes anything');
    await client.close();
  }
});

test('revisions: the client\'s when supported, else the latest; structured output from 2025-06-18', async () => {
  const cases = [
    ['2024-11-05', '2024-11-05', false],
    ['2025-03-26', '2025-03-26', false],
    ['2025-06-18', '2025-06-18', true],
    [LATEST_PROTOCOL_VERSION, LATEST_PROTOCOL_VERSION, true],
    ['1999-01-01', LATEST_PROTOCOL_VERSION, true],
  ];
  for (const [asked, got, structured] of cases) {
    const ctx = scratch();
    const s = rawSession([], serverEnv(ctx));
    s.send(INIT(1, asked));
    const init = await s.next();
    assert.equal(init.result.protocolVersion, got, asked);
    s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const list = await s.next();
    assert.equal(list.result.tools.length, 6);
    assert.equal(list.result.tools.every((t) => 'outputSchema' in t), structured, asked);
    s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_files', arguments: {} } });
    const res = await s.next();
    assert.equal('structuredContent' in res.result, structured, asked);
    assert.match(res.result.content[0].text, /"tier":"CONTAINER"/);
    // The second initialize of a session is refused.
    s.send(INIT(4, asked));
    assert.equal((await s.next()).error.code, -32600);
    s.proc.stdin.end();
    assert.equal(await s.exited, 0);
  }
});

test('protocol errors: unknown method, unknown tool, bad params, before initialize', async () => {
  const ctx = scratch();
  const s = rawSession([], serverEnv(ctx));
  s.send({ jsonrpc: '2.0', id: 'early', method: 'tools/list' });
  assert.equal((await s.next()).error.code, -32600, 'not initialized yet');
  s.send({ jsonrpc: '2.0', id: 'p', method: 'ping' });
  assert.deepEqual((await s.next()).result, {}, 'ping works at any time');
  s.send(INIT());
  await s.next();
  const expect = [
    [{ jsonrpc: '2.0', id: 10, method: 'resources/list' }, -32601],
    [{ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'rm_rf' } }, -32602],
    [{ jsonrpc: '2.0', id: 12, method: 'tools/call', params: {} }, -32602],
    [{ jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'run_command', arguments: [1] } }, -32602],
    [{ jsonrpc: '2.0', id: 14, method: 'tools/call', params: 'x' }, -32600],
    [{ jsonrpc: '1.0', id: 15, method: 'ping' }, -32600],
    ['{"jsonrpc":"2.0","id":16,"method":"ping"', -32700],
  ];
  for (const [msg, code] of expect) {
    s.send(msg);
    const r = await s.next();
    assert.equal(r.error?.code, code, JSON.stringify(msg));
  }
  // A bad argument is a tool error the model can correct, not a protocol one.
  s.send({ jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'run_command', arguments: { command: 'ls' } } });
  const bad = await s.next();
  assert.equal(bad.result.isError, true);
  assert.match(bad.result.content[0].text, /\[SBX_E1901\] InvalidArgument: unknown argument "command"/);
  // Ids come back exactly as sent, however large.
  s.send('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}');
  const huge = await s.next();
  assert.ok(s.stdout.includes('"id":123456789012345678901234567890'), s.stdout);
  assert.deepEqual(huge.result, {});
  s.proc.stdin.end();
  assert.equal(await s.exited, 0);
  assert.deepEqual(callLog(ctx).filter((l) => l.startsWith('create')), [], 'none of this created a sandbox');
});

await run();
