// SPDX-License-Identifier: MIT
// What an MCP client does with sbio mcp, as reusable checks: the same ones
// run over stdio and HTTP, on the fake and on a real Docker Engine.
import Ajv2020 from 'ajv/dist/2020.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { assert, assertTier, auditEvents, eventually, TOOLS } from './lib.mjs';

// tools/list: exactly the six tools, each schema valid JSON Schema (2020-12,
// the dialect MCP assumes) and compilable.
export async function checkListing(client) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  for (const t of tools) {
    for (const key of ['inputSchema', 'outputSchema']) {
      const schema = t[key];
      assert.ok(schema, `${t.name} has ${key}`);
      assert.equal(schema.type, 'object', `${t.name}.${key} describes an object`);
      assert.ok(ajv.validateSchema(schema), `${t.name}.${key}: ${ajv.errorsText(ajv.errors)}`);
      ajv.compile(schema);
    }
    assert.ok(t.description.length > 20, `${t.name} has a description`);
  }
  return tools;
}

const call = (client, name, args = {}, options) => client.callTool({ name, arguments: args }, CallToolResultSchema, options);

// Every tool once, in one sandbox; each result names the tier. Returns the
// sandbox id. `python` says whether the sandbox has python3.
export async function checkEveryTool(client, { tier, backend, python }) {
  const ids = new Set();
  const ok = (r, what) => {
    assert.equal(r.isError, false, `${what}: ${r.content?.[0]?.text}`);
    assertTier(r, tier);
    assert.equal(r.structuredContent.isolation.backend, backend);
    ids.add(r.structuredContent.isolation.sandbox_id);
    return r.structuredContent;
  };

  let r = ok(await call(client, 'write_file', { path: '/work/hello.txt', content: 'h\u00e9llo\n' }), 'write_file');
  assert.equal(r.size, 7);
  r = ok(await call(client, 'read_file', { path: '/work/hello.txt' }), 'read_file');
  assert.equal(r.content, 'h\u00e9llo\n');
  assert.equal(r.encoding, 'utf-8');
  // Bytes that are not UTF-8 go both ways as base64.
  const blob = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 10]).toString('base64');
  ok(await call(client, 'write_file', { path: '/work/blob.bin', content: blob, encoding: 'base64' }), 'write base64');
  r = ok(await call(client, 'read_file', { path: '/work/blob.bin' }), 'read binary');
  assert.equal(r.encoding, 'base64');
  assert.equal(r.content, blob);

  r = ok(await call(client, 'list_files', {}), 'list_files /work');
  assert.equal(r.path, '/work');
  const hello = r.entries.find((e) => e.path === '/work/hello.txt');
  assert.deepEqual(hello, { path: '/work/hello.txt', size: 7, is_dir: false });

  r = ok(await call(client, 'run_command', { cmd: 'cat /work/hello.txt; echo oops >&2; exit 3' }), 'run_command');
  assert.equal(r.stdout, 'h\u00e9llo\n');
  assert.equal(r.stderr, 'oops\n');
  assert.equal(r.exit_code, 3); // a failing command is data, not a tool error
  assert.equal(r.truncated, false);

  const py = await call(client, 'run_python', { code: 'import sys; print(6*7); sys.exit(2)' });
  if (python) {
    r = ok(py, 'run_python');
    assert.equal(r.stdout, '42\n');
    assert.equal(r.exit_code, 2);
  } else {
    assert.equal(py.isError, true, 'no python3: a tool error');
    assertTier(py, tier);
    assert.match(py.content[0].text, /no python3/);
    assert.match(py.content[0].text, /Fix: \S/);
  }

  r = ok(await call(client, 'sandbox_info'), 'sandbox_info');
  assert.equal(r.backend, backend);
  assert.equal(r.tier, tier);
  assert.ok(r.tier_reason.length > 10, 'says why the tier is what it is');
  assert.deepEqual(r.network, { egress: 'deny' });
  assert.ok(r.capabilities.includes('run_command'));

  assert.equal(ids.size, 1, `one sandbox for every call, got ${[...ids]}`);
  return [...ids][0];
}

export async function checkMissingFile(client, tier) {
  const r = await call(client, 'read_file', { path: '/work/no-such-file.txt' });
  assert.equal(r.isError, true);
  const text = r.content[0].text;
  assert.match(text, /^\[SBX_E1701\] PathNotFound: /);
  assert.match(text, /no-such-file/);
  assert.match(text, /\nFix: \S+/);
  assertTier(r, tier);
}

// Output beyond the cap is cut and said so.
export async function checkTruncation(client) {
  const r = await call(client, 'run_command', { cmd: 'seq 1 30000' });
  assert.equal(r.isError, false);
  assert.equal(r.structuredContent.truncated, true);
  assert.equal(r.structuredContent.stdout.length, 65536);
}

// A command that runs a few seconds, with a progressToken: notifications
// arrive, each with a larger progress and a message.
export async function checkProgress(client, cmd) {
  const seen = [];
  const r = await call(client, 'run_command', { cmd }, { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true });
  assert.equal(r.isError, false, r.content?.[0]?.text);
  assert.ok(seen.length >= 2, `progress notifications: ${JSON.stringify(seen)}`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress, 'progress increases');
  assert.ok(seen.every((p) => typeof p.message === 'string' && p.message.length > 0));
  assert.ok(seen.some((p) => /running for \d+ s/.test(p.message)), 'a tick while the command ran');
}

// Cancels a long command once it is running (the first "running for N s"
// tick after the command started), then shows the sandbox kept its state.
// `audit`: where to confirm the exec was killed mid-run (exit 137,
// SBX_E1902); null to skip that (an engine test checks processes instead).
export async function checkCancel(client, { tier, ctx, longCmd }) {
  const before = await call(client, 'run_command', { cmd: 'echo kept > /work/marker' });
  assert.equal(before.isError, false, before.content?.[0]?.text);
  const id = before.structuredContent.isolation.sandbox_id;
  const ac = new AbortController();
  let started = false;
  const pending = call(client, 'run_command', { cmd: longCmd }, {
    signal: ac.signal,
    onprogress: (p) => {
      if (p.message === 'running the command') started = true;
      else if (started && /running for \d+ s/.test(p.message)) ac.abort('the test cancels it');
    },
  });
  await assert.rejects(pending, 'a cancelled request gets no result');
  if (ctx) {
    const killed = await eventually(
      () => auditEvents(ctx).find((e) => e.event === 'exec' && e.error_code === 'SBX_E1902'),
      'the audit event of the cancelled exec',
    );
    assert.equal(killed.exit_code, 137, 'killed while it ran');
    assert.equal(killed.tier, tier);
  }
  const after = await call(client, 'run_command', { cmd: 'cat /work/marker' });
  assert.equal(after.isError, false, after.content?.[0]?.text);
  assert.equal(after.structuredContent.stdout, 'kept\n');
  assert.equal(after.structuredContent.isolation.sandbox_id, id, 'the same sandbox');
  return id;
}
