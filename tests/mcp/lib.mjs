// SPDX-License-Identifier: MIT
// Shared by the tests that drive `sbio mcp` with the official MCP SDK: a
// tiny sequential test runner, scratch configurations (an audit log and the
// fake backend's call log, which prove what was and was not provisioned),
// and starting the server over stdio or HTTP.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

export { assert };
export const SBIO = process.env.SBIO_BIN;
if (!SBIO) throw new Error('SBIO_BIN must name the sbio executable');

// ------------------------------------------------------------ the runner
const tests = [];
export function test(name, fn) {
  tests.push({ name, fn });
}
export async function run() {
  let failed = 0;
  const only = process.env.MCP_TEST_ONLY;
  for (const t of tests) {
    if (only && !t.name.includes(only)) continue;
    try {
      await t.fn();
      console.log(`ok - ${t.name}`);
    } catch (e) {
      failed++;
      console.log(`not ok - ${t.name}\n  ${(e && e.stack) || e}`.replace(/\n/g, '\n  '));
    }
  }
  console.log(failed ? `${failed} test(s) failed` : 'all passed');
  process.exit(failed ? 1 : 0);
}

// ---------------------------------------------------------- scratch dirs
// A directory with config.yaml: an audit file, the fake's call log (one
// line per backend operation: `create ID`, `exec ID CMD`, `kill ID`), and
// `extra` YAML at the top level (e.g. require_isolation).
export function scratch(extra = '', backendsYaml = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbio-mcp-'));
  const ctx = {
    dir,
    config: path.join(dir, 'config.yaml'),
    audit: path.join(dir, 'audit.jsonl'),
    callLog: path.join(dir, 'fake.log'),
  };
  const backends =
    backendsYaml ??
    `backends:\n  fake:\n    settings:\n      time_scale: 0.01\n      call_log: ${ctx.callLog}\n`;
  fs.writeFileSync(ctx.config, `audit:\n  path: ${ctx.audit}\n${extra}${backends}`);
  return ctx;
}

export function lines(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length);
  } catch {
    return [];
  }
}
export const callLog = (ctx) => lines(ctx.callLog);
export const auditEvents = (ctx) => lines(ctx.audit).map((l) => JSON.parse(l));

// Waits (bounded) until pred() holds; the bound is a safety net against a
// hang, never what a test asserts.
export async function eventually(pred, what, limitMs = 60000) {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The environment an MCP client gives a stdio server: the SDK's minimal
// default (HOME, LOGNAME, PATH, SHELL, TERM, USER) plus what docs/mcp.md
// says to pass explicitly.
export function serverEnv(ctx, more = {}) {
  return { ...getDefaultEnvironment(), SBIO_CONFIG: ctx.config, SBIO_BACKEND_PATH: '', ...more };
}

// ------------------------------------------------------------ processes
// Starts `sbio mcp ARGS` with pipes; resolves `exited` with the exit code
// (128+N for a signal, as a shell reports it).
export function spawnServer(args, env) {
  const proc = spawn(SBIO, ['mcp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const out = { proc, stdout: '', stderr: '' };
  proc.stdout.setEncoding('utf8');
  proc.stderr.setEncoding('utf8');
  proc.stdout.on('data', (d) => (out.stdout += d));
  proc.stderr.on('data', (d) => (out.stderr += d));
  out.exited = new Promise((resolve) =>
    proc.on('exit', (code, signal) => resolve(code ?? 128 + os.constants.signals[signal])),
  );
  return out;
}

// A raw stdio session: send() writes one line, next() resolves with the
// next message the server writes (parsed), in order.
export function rawSession(args, env) {
  const s = spawnServer(args, env);
  const queue = [];
  const waiters = [];
  let buf = '';
  s.proc.stdout.removeAllListeners('data');
  s.proc.stdout.on('data', (d) => {
    s.stdout += d;
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const msg = JSON.parse(line); // every line must be one JSON text
      if (waiters.length) waiters.shift()(msg);
      else queue.push(msg);
    }
  });
  s.send = (obj) => s.proc.stdin.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
  s.next = () =>
    queue.length
      ? Promise.resolve(queue.shift())
      : new Promise((resolve, reject) => {
          const t = setTimeout(() => reject(new Error(`no message from the server; stderr: ${s.stderr}`)), 60000);
          waiters.push((m) => {
            clearTimeout(t);
            resolve(m);
          });
        });
  return s;
}

export const INIT = (id = 1, version = '2025-11-25') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

// Starts `sbio mcp --transport http --port 0 ARGS`; resolves once it says
// where it listens.
export async function startHttp(args, env) {
  const s = spawnServer(['--transport', 'http', '--port', '0', ...args], env);
  const url = await eventually(() => {
    const m = s.stderr.match(/at (http:\/\/\S+\/mcp)/);
    return m && m[1];
  }, `the server's URL (stderr: ${s.stderr})`);
  s.url = url;
  return s;
}

// ------------------------------------------------------------ results
export const TOOLS = ['list_files', 'read_file', 'run_command', 'run_python', 'sandbox_info', 'write_file'];

// Every result carries the tier: structured when it succeeded, in the text
// always.
export function assertTier(result, tier) {
  const text = result.content?.[0]?.text ?? '';
  if (result.isError) {
    assert.match(text, new RegExp(`Isolation: ${tier}\\b`), `error text names the tier: ${text}`);
  } else {
    assert.equal(result.structuredContent?.isolation?.tier, tier, JSON.stringify(result));
    assert.ok(text.includes(`"tier":"${tier}"`), `text content names the tier: ${text}`);
  }
}
