// SPDX-License-Identifier: MIT
// docs/mcp.md shows a session and a start-up refusal; this runs both
// exactly as written there and compares what sbio mcp answers with what
// the page says (the one thing allowed to differ is duration_ms).
import fs from 'node:fs';
import { assert, rawSession, run, scratch, serverEnv, spawnServer, test } from './lib.mjs';

const page = fs.readFileSync(process.env.SBIO_DOCS_MCP, 'utf8');
const norm = (line) => line.replace(/(\\?"duration_ms\\?":)\d+/g, '$10');

test('the session of docs/mcp.md', async () => {
  const block = page.slice(page.indexOf('<!-- session:begin -->'), page.indexOf('<!-- session:end -->'));
  const lines = block.split('\n');
  const cmd = lines.find((l) => l.startsWith('$ '));
  assert.equal(cmd, '$ sbio mcp --backend fake://');
  const args = cmd.slice('$ sbio mcp '.length).split(' ');
  const ctx = scratch();
  const s = rawSession(args, serverEnv(ctx));
  let sent = 0,
    checked = 0;
  for (const l of lines) {
    if (l.startsWith('→ ')) {
      s.send(l.slice(2));
      sent++;
    } else if (l.startsWith('← ')) {
      const got = JSON.stringify(await s.next());
      assert.equal(norm(got), norm(l.slice(2)));
      checked++;
    }
  }
  assert.ok(sent >= 4 && checked >= 4, `${sent} sent, ${checked} compared`);
  s.proc.stdin.end();
  assert.equal(await s.exited, 0, 'closing stdin ends it with 0');
});

test('the start-up refusal of docs/mcp.md', async () => {
  const at = page.indexOf('$ sbio mcp --backend fake:// --require-isolation microvm');
  assert.ok(at > 0);
  const block = page.slice(at, page.indexOf('```', at)).split('\n');
  const args = block[0].slice('$ sbio mcp '.length).split(' ');
  const expected = block.slice(1, block.indexOf('$ echo $?')).join('\n') + '\n';
  const status = Number(block[block.indexOf('$ echo $?') + 1]);
  const s = spawnServer(args, serverEnv(scratch()));
  s.proc.stdin.end();
  assert.equal(await s.exited, status);
  // Stale-source warnings (a clock past the sources' re-verification
  // window) may precede the error; the error itself is what the page says.
  const stderr = s.stderr.split('\n').filter((l) => !/re-verification window/.test(l)).join('\n');
  assert.equal(stderr, expected);
});

await run();
