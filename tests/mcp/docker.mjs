// SPDX-License-Identifier: MIT
// sbio mcp on a real Docker Engine (the private one tests/docker/engine.sh
// starts), driven by the official MCP SDK exactly as a client configured
// with {"command": "sbio", "args": ["mcp", "--backend", "docker://IMAGE"]}
// runs it: every tool, one sandbox, cancellation, progress, and nothing left
// on the engine after a disconnect, a DELETE or a SIGTERM.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { checkCancel, checkEveryTool, checkListing, checkMissingFile, checkProgress } from './flows.mjs';
import { assert, eventually, INIT, rawSession, run, SBIO, scratch, serverEnv, spawnServer, startHttp, test } from './lib.mjs';

const stateDir = process.env.SBIO_TEST_DOCKER_STATE;
const state = Object.fromEntries(
  (fs.existsSync(`${stateDir}/state`) ? fs.readFileSync(`${stateDir}/state`, 'utf8') : 'skip=no engine state')
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);
if (!state.host) {
  console.log(`SKIPPED: ${state.skip ?? state.error ?? 'no engine'}`);
  process.exit(process.env.CI === 'true' ? 1 : 77);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const pythonImage = execFileSync(path.join(here, 'python_image.sh'), [stateDir], { encoding: 'utf8' }).trim();

const docker = (...args) => execFileSync('docker', ['-H', state.host, ...args], { encoding: 'utf8' });
// Containers of sbio mcp: they carry its label (as io.sandboxio.meta.*).
const mcpContainers = () => docker('ps', '-aq', '--filter', 'label=io.sandboxio.meta.sandboxio_mcp=1').split('\n').filter((l) => l);
const noneLeft = () => eventually(() => mcpContainers().length === 0, `no sbio mcp container left: ${mcpContainers()}`);

const dockerCtx = () =>
  scratch('', `backends:\n  docker:\n    settings:\n      host: ${state.host}\n      pull: never\n`);

// Runs fn(client), always closing the client (and so the server) after.
async function withClient(ctx, image, fn, extra = []) {
  const c = await connect(ctx, image, extra);
  try {
    return await fn(c.client);
  } finally {
    await c.client.close().catch(() => {});
  }
}

// What a client's configuration says, with the built sbio for "sbio".
async function connect(ctx, image, extra = []) {
  const config = { command: 'sbio', args: ['mcp', '--backend', `docker://${image}`, ...extra] };
  const transport = new StdioClientTransport({ command: SBIO, args: config.args, env: serverEnv(ctx), stderr: 'pipe' });
  const client = new Client({ name: 'sbio-mcp-docker-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

test('listing provisions nothing; every tool in one container; the tier is CONTAINER (runc)', async () => {
  assert.deepEqual(mcpContainers(), [], 'a clean engine to start with');
  const ctx = dockerCtx();
  await withClient(ctx, state.image, async (client) => {
    await checkListing(client);
    assert.deepEqual(mcpContainers(), [], 'tools/list created no container');
    const id = await checkEveryTool(client, { tier: 'CONTAINER', backend: 'docker', python: false });
    await checkMissingFile(client, 'CONTAINER');
    const info = await client.callTool({ name: 'sandbox_info', arguments: {} });
    assert.equal(info.structuredContent.mechanism, 'runc');
    assert.match(info.structuredContent.tier_reason, /docs\.docker\.com/);
    assert.equal(info.structuredContent.exec_cancellable, true);
    const running = mcpContainers();
    assert.equal(running.length, 1, 'one container for all the calls');
    assert.ok(id.startsWith(running[0]), `${id} is ${running[0]}`);
  }); // the client goes away: so does the container
  await noneLeft();
});

test('run_python uses the image\'s own python3', async () => {
  const ctx = dockerCtx();
  await withClient(ctx, pythonImage, (client) => checkEveryTool(client, { tier: 'CONTAINER', backend: 'docker', python: true }));
  await noneLeft();
});

test('a command cancelled mid-run is killed, the container kept; progress while it runs', async () => {
  const ctx = dockerCtx();
  await withClient(ctx, state.image, async (client) => {
    await checkProgress(client, 'echo a; sleep 3; echo b');
    const id = await checkCancel(client, { tier: 'CONTAINER', ctx, longCmd: 'echo started; sleep 600' });
    const left = await client.callTool({ name: 'run_command', arguments: { cmd: 'ps -o args | grep -c "^sleep 600" || true' } });
    assert.equal(left.structuredContent.stdout, '0\n', 'the cancelled command is gone from the container');
    assert.equal(mcpContainers().length, 1);
    assert.ok(id.startsWith(mcpContainers()[0]));
  });
  await noneLeft();
});

test('the floor at start-up follows the plan: runc refused under gvisor, runsc served', async () => {
  // The metadata declares runsc too; only the plan (the engine's default
  // runtime, runc) says this configuration would not meet the floor.
  const ctx = dockerCtx();
  const s = spawnServer(['--backend', `docker://${state.image}`, '--require-isolation', 'gvisor'], serverEnv(ctx));
  s.proc.stdin.end();
  assert.equal(await s.exited, 78, s.stderr);
  assert.match(s.stderr, /\[SBX_E1000\] backend docker cannot meet the required isolation GVISOR: it offers CONTAINER \(mechanism "runc"/);
  assert.deepEqual(mcpContainers(), [], 'nothing created');
  if (state.runsc !== '1') return; // no gVisor on this engine: the refusal is what could be shown
  const g = scratch('', `backends:\n  docker:\n    settings:\n      host: ${state.host}\n      pull: never\n      runtime: runsc\n`);
  await withClient(g, state.image, async (client) => {
    const r = await client.callTool({ name: 'sandbox_info', arguments: {} });
    assert.equal(r.structuredContent.tier, 'GVISOR');
    assert.equal(r.structuredContent.mechanism, 'runsc');
    assert.equal(r.structuredContent.required_tier, 'GVISOR');
  }, ['--require-isolation', 'gvisor']);
  await noneLeft();
});

test('SIGTERM with a command running: exit 143, no container left', async () => {
  const ctx = dockerCtx();
  const s = rawSession(['--backend', `docker://${state.image}`], serverEnv(ctx));
  s.send(INIT());
  await s.next();
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_command', arguments: { cmd: 'sleep 600' } } });
  await eventually(() => mcpContainers().length === 1, 'the container');
  s.proc.kill('SIGTERM');
  assert.equal(await s.exited, 143, s.stderr);
  assert.deepEqual(mcpContainers(), [], 'destroyed before exit');
});

test('HTTP: the last session\'s DELETE removes the container, SIGTERM leaves none', async () => {
  const ctx = dockerCtx();
  const server = await startHttp(['--backend', `docker://${state.image}`], serverEnv(ctx));
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  const client = new Client({ name: 'sbio-mcp-docker-http', version: '1.0.0' });
  await client.connect(transport);
  const r = await client.callTool({ name: 'run_command', arguments: { cmd: 'echo over http' } });
  assert.equal(r.structuredContent.stdout, 'over http\n');
  assert.equal(r.structuredContent.isolation.tier, 'CONTAINER');
  assert.equal(mcpContainers().length, 1);
  await transport.terminateSession();
  await noneLeft();
  await client.close();
  // A new client, a new container; then the operator stops the server.
  const t2 = new StreamableHTTPClientTransport(new URL(server.url));
  const c2 = new Client({ name: 'sbio-mcp-docker-http-2', version: '1.0.0' });
  await c2.connect(t2);
  await c2.callTool({ name: 'list_files', arguments: {} });
  assert.equal(mcpContainers().length, 1);
  server.proc.kill('SIGTERM');
  assert.equal(await server.exited, 143);
  assert.deepEqual(mcpContainers(), []);
  await c2.close().catch(() => {});
});

await run();
