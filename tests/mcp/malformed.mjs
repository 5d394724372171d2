// SPDX-License-Identifier: MIT
// Hostile input: 1,000 malformed messages over stdio and over HTTP leave the
// server answering, each with the JSON-RPC error the specification names,
// and everything it writes is valid UTF-8 JSON, even when a command prints
// bytes that are not text.
import { spawn } from 'node:child_process';
import { assert, callLog, INIT, rawSession, run, SBIO, scratch, serverEnv, startHttp, test } from './lib.mjs';

const strict = new TextDecoder('utf-8', { fatal: true });

// 1,000 lines, each malformed in its own way, each deserving exactly one
// error answer. Deterministic: the same every run.
function malformedLines() {
  const kinds = [
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"ping"`), // truncated
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"ping",}`), // trailing comma
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"p\xff\xfeng"}`, 'latin1'), // not UTF-8
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":"\\ud800${i}","method":"ping"}`), // lone surrogate
    (i) => Buffer.from('['.repeat(1000 + i) + ']'.repeat(1000 + i)), // deep nesting
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${'9'.repeat(100 + i)},"method":"nope"}`), // huge id, unknown method
    (i) => Buffer.from(`{"jsonrpc":"1.0","id":${i},"method":"ping"}`),
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":null,"method":"ping","x":${i}}`),
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":[${i}]}`),
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"id":${i + 1},"method":"ping"}`), // duplicate key
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":${i}}}`),
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"x\\u0000${i}"}}`),
    (i) => Buffer.from(`[]`),
    (i) => Buffer.from(`"just a string ${i}"`),
    (i) => Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'), Buffer.from([0, 1, 2, i & 255]), Buffer.from('"}')]),
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"run_command","arguments":"rm"}}`),
    (i) => Buffer.from(`\xef\xbb\xbf{"jsonrpc":"2.0","id":${i},"method":"ping"}`, 'latin1'), // BOM
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":"ping","params":{"a":1e${i}}`),
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"method":""}`),
    (i) => Buffer.from(`{"jsonrpc":"2.0","id":${i},"result":{},"method":"ping"}`),
  ];
  const out = [];
  for (let i = 0; i < 1000; i++) out.push(kinds[i % kinds.length](i));
  return out;
}

// Splits raw stdout into lines, checking each is valid UTF-8 and JSON.
function parseLines(raw) {
  const text = strict.decode(raw); // throws on invalid UTF-8
  return text
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l));
}

// After what a test sent, the session still answers a ping, and the
// server ends with status 0 when its input closes.
async function stillServesThenEnds(s) {
  s.send({ jsonrpc: '2.0', id: 'alive', method: 'ping' });
  assert.deepEqual((await s.next()).result, {});
  s.proc.stdin.end();
  assert.equal(await s.exited, 0);
}

test('stdio: 1,000 malformed messages, 1,000 errors, and it still answers', async () => {
  const ctx = scratch();
  const proc = spawn(SBIO, ['mcp'], { env: serverEnv(ctx), stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks = [];
  proc.stdout.on('data', (d) => chunks.push(d));
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => proc.on('exit', (code) => r(code)));
  proc.stdin.write(JSON.stringify(INIT(0)) + '\n');
  for (const l of malformedLines()) proc.stdin.write(Buffer.concat([l, Buffer.from('\n')]));
  // Larger than the 4 MiB bound: refused without being buffered whole.
  proc.stdin.write('{"a":"' + 'z'.repeat(5 * 1024 * 1024) + '"}\n');
  proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 'alive', method: 'ping' }) + '\n');
  // Binary output of a command is still valid UTF-8 JSON.
  const blob = Buffer.from([0xff, 0xfe, 0, 0xc3, 0x28, 0x41, 10]).toString('base64');
  proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'write_file', arguments: { path: '/work/b', content: blob, encoding: 'base64' } } }) + '\n');
  proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'run_command', arguments: { cmd: 'cat /work/b' } } }) + '\n');
  const waitFor = (id) =>
    new Promise((resolve) => {
      const check = () => {
        const msgs = parseLines(Buffer.concat(chunks));
        const m = msgs.find((x) => x.id === id);
        if (m) resolve(msgs);
        else setTimeout(check, 20);
      };
      check();
    });
  const msgs = await waitFor('c');
  proc.stdin.end();
  assert.equal(await exited, 0, stderr);
  const errors = msgs.filter((m) => m.error);
  assert.equal(errors.length, 1001, 'one error per malformed message, one for the oversized one');
  for (const e of errors) {
    assert.ok([-32700, -32600, -32601, -32602].includes(e.error.code), JSON.stringify(e));
    assert.ok(e.error.message.length > 10);
  }
  assert.ok(errors.some((e) => /more than 4194304 bytes/.test(e.error.message)));
  assert.ok(errors.some((e) => /nesting deeper than 64/.test(e.error.message)));
  assert.ok(errors.some((e) => /invalid UTF-8/.test(e.error.message)));
  assert.deepEqual(msgs.find((m) => m.id === 'alive').result, {});
  const cat = msgs.find((m) => m.id === 'c').result;
  assert.equal(cat.isError, false);
  assert.equal(cat.structuredContent.stdout, '\ufffd\ufffd\u0000\ufffd(A\n', 'invalid bytes became U+FFFD');
});

test('HTTP: 1,000 malformed bodies, each refused, and it still serves', async () => {
  const ctx = scratch();
  const server = await startHttp([], serverEnv(ctx));
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  let res = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(INIT(0)) });
  const sid = res.headers.get('mcp-session-id');
  assert.match(sid, /^[0-9a-f]{32}$/);
  let answered = 0;
  for (const body of malformedLines()) {
    res = await fetch(server.url, { method: 'POST', headers: { ...headers, 'Mcp-Session-Id': sid }, body });
    const raw = Buffer.from(await res.arrayBuffer());
    assert.ok(res.status === 200 || res.status === 400, `status ${res.status}`);
    const parsed = JSON.parse(strict.decode(raw));
    const list = Array.isArray(parsed) ? parsed : [parsed];
    assert.ok(list.every((m) => m.error && [-32700, -32600, -32601, -32602].includes(m.error.code)), strict.decode(raw));
    answered++;
  }
  assert.equal(answered, 1000);
  res = await fetch(server.url, {
    method: 'POST',
    headers: { ...headers, 'Mcp-Session-Id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'alive', method: 'ping' }),
  });
  assert.deepEqual((await res.json()).result, {});
  server.proc.kill('SIGTERM');
  assert.equal(await server.exited, 143);
});

test('stdio: an id or progress token of any length comes back exactly as sent', async () => {
  const ctx = scratch();
  const s = rawSession([], serverEnv(ctx));
  const sameId = (m, id) => assert.ok(m.id === id, `the id came back as sent: ${JSON.stringify(m).slice(0, 200)}`);
  // 100,000 characters, and 600,000 DEL characters, which the writer
  // escapes to six bytes each (3.6 MB written back from a 0.6 MB line).
  const long = 'i'.repeat(100000);
  const del = '\x7f'.repeat(600000);
  const initId = 'init-' + long;
  s.send(INIT(initId));
  const init = await s.next();
  sameId(init, initId);
  assert.equal(init.result?.protocolVersion, '2025-11-25', JSON.stringify(init).slice(0, 300));
  s.send({ jsonrpc: '2.0', id: long, method: 'ping' });
  const ping = await s.next();
  sameId(ping, long);
  assert.deepEqual(ping.result, {});
  s.send({ jsonrpc: '2.0', id: long, method: 'resources/list' });
  const unknown = await s.next();
  sameId(unknown, long);
  assert.equal(unknown.error?.code, -32601);
  s.send({ jsonrpc: '2.0', id: long, method: 'tools/list' });
  const list = await s.next();
  sameId(list, long);
  assert.equal(list.result?.tools?.length, 6);
  s.send({ jsonrpc: '2.0', id: del, method: 'tools/call', params: { name: 'sandbox_info' } });
  const info = await s.next();
  sameId(info, del);
  assert.equal(info.result?.isError, false, JSON.stringify(info).slice(0, 300));
  s.send({
    jsonrpc: '2.0',
    id: 'progress',
    method: 'tools/call',
    params: { name: 'run_command', arguments: { cmd: 'echo hi' }, _meta: { progressToken: long } },
  });
  const progress = await s.next();
  assert.equal(progress.method, 'notifications/progress', JSON.stringify(progress).slice(0, 300));
  assert.ok(progress.params.progressToken === long, 'the progress token came back as sent');
  let done;
  while ((done = await s.next()).method === 'notifications/progress');
  assert.equal(done.id, 'progress');
  assert.equal(done.result?.structuredContent?.stdout, 'hi\n');
  s.proc.stdin.end();
  assert.equal(await s.exited, 0);
});

test('stdio: an object of 450,000 members is read without a quadratic check of its keys', async () => {
  const ctx = scratch();
  const s = rawSession([], serverEnv(ctx));
  s.send(INIT());
  await s.next();
  // Distinct four-character keys, just under the 4 MiB bound: checking
  // each new key against every earlier one (quadratic) takes minutes, far
  // past next()'s bound; a duplicate among them is still found.
  const keys = [];
  for (let i = 0; i < 450000; i++) keys.push(`"${i.toString(36).padStart(4, '0')}":0`);
  const members = keys.join(',');
  s.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{${members}}}`);
  assert.deepEqual((await s.next()).result, {});
  s.send(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{${members},"0000":1}}`);
  const dup = await s.next();
  assert.equal(dup.error?.code, -32700);
  const at = 50 + members.length + 1;
  assert.equal(dup.error.message, `Parse error: duplicate key in an object at byte ${at}`);
  s.send(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{${members},"x":1,"x":2}}`);
  const dup2 = await s.next();
  assert.equal(dup2.error.message, `Parse error: duplicate key in an object at byte ${at + 6}`);
  await stillServesThenEnds(s);
});

test('stdio: a line one byte over 4 MiB is refused however the reads fall', async () => {
  const ctx = scratch();
  const s = rawSession([], serverEnv(ctx));
  const ping = (id, size) => {
    const head = `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"pad":"`;
    return head + 'a'.repeat(size - head.length - 3) + '"}}';
  };
  const MAX = 4 * 1024 * 1024;
  s.send(ping(1, MAX)); // exactly the bound: served
  assert.deepEqual((await s.next()).result, {});
  for (const over of [1, 1000, 60000]) {
    s.send(ping(2, MAX + over));
    const r = await s.next();
    assert.equal(r.error?.code, -32600, `${over} bytes over: ${JSON.stringify(r)}`);
    assert.match(r.error.message, /more than 4194304 bytes was refused unread/);
    assert.equal(r.id, null);
  }
  await stillServesThenEnds(s);
});

test('stdio: a last message without its newline is still answered at end of file', async () => {
  const ctx = scratch();
  for (const [tail, check] of [
    ['{"jsonrpc":"2.0","id":"last","method":"ping"}', (m) => assert.deepEqual(m.result, {})],
    ['{"jsonrpc":"2.0","id":"last","method":"ping"}\r', (m) => assert.deepEqual(m.result, {})],
    ['{"jsonrpc":"2.0","id":"last","meth', (m) => assert.equal(m.error?.code, -32700)],
  ]) {
    const s = rawSession([], serverEnv(ctx));
    s.send(INIT());
    await s.next();
    s.proc.stdin.end(tail);
    const m = await s.next();
    check(m);
    assert.equal(await s.exited, 0);
  }
  // A line over the bound that ends at end of file is refused, not dropped.
  const s = rawSession([], serverEnv(ctx));
  s.proc.stdin.end('{"a":"' + 'z'.repeat(5 * 1024 * 1024) + '"}');
  const big = await s.next();
  assert.equal(big.error?.code, -32600);
  assert.equal(await s.exited, 0);
  assert.deepEqual(callLog(ctx).filter((l) => l.startsWith('create')), [], 'none of this created a sandbox');
});

await run();
