// SPDX-License-Identifier: MIT
// The official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned at 0.1.13, the last release that runs on Node.js 20) in server
// mode against `sbio mcp --transport http`. Every scenario of --suite all
// runs; the ones in baseline.yml test features this server does not offer
// and must fail for exactly that reason; all others must pass.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert, run, scratch, serverEnv, startHttp, test } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const suite = path.join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'server-sse-polling', 'dns-rebinding-protection'];

test('conformance suite 0.1.13: every applicable scenario passes, the rest fail only for what is not offered', async () => {
  const ctx = scratch();
  const server = await startHttp([], serverEnv(ctx));
  const out = path.join(ctx.dir, 'results');
  const proc = spawn(process.execPath, [suite, 'server', '--url', server.url, '--suite', 'all',
    '--expected-failures', path.join(here, 'baseline.yml'), '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout.on('data', (d) => (log += d));
  proc.stderr.on('data', (d) => (log += d));
  const code = await new Promise((r) => proc.on('exit', (c) => r(c)));
  const summary = log.slice(log.indexOf('=== SUMMARY ==='));
  console.log(summary);
  assert.equal(code, 0, `the suite against its baseline:\n${log.slice(-4000)}`);

  const baseline = fs.readFileSync(path.join(here, 'baseline.yml'), 'utf8').match(/^  - (\S+)/gm).map((l) => l.slice(4));
  const results = {};
  for (const dir of fs.readdirSync(out)) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    results[scenario] = JSON.parse(fs.readFileSync(path.join(out, dir, 'checks.json'), 'utf8'));
  }
  for (const s of APPLICABLE) {
    assert.ok(results[s], `scenario ${s} ran`);
    const bad = results[s].filter((c) => c.status === 'FAILURE');
    assert.deepEqual(bad, [], `${s} passes`);
  }
  assert.ok(results['dns-rebinding-protection'].filter((c) => c.status === 'SUCCESS').length >= 2);
  for (const s of baseline) {
    const failures = (results[s] ?? []).filter((c) => c.status === 'FAILURE');
    assert.ok(failures.length > 0, `${s} fails`);
    for (const f of failures)
      assert.match(f.errorMessage ?? '', /Method not found|Unknown tool|not found\. Available tools/, `${s}: ${f.errorMessage}`);
  }
  const all = Object.keys(results);
  assert.deepEqual(all.filter((s) => !APPLICABLE.includes(s) && !baseline.includes(s)), [], 'no scenario unaccounted for');
  server.proc.kill('SIGTERM');
  assert.equal(await server.exited, 143);
});

await run();
