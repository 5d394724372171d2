// SPDX-License-Identifier: MIT
// The emulator's fidelity, judged by E2B's own JavaScript SDK (package e2b,
// pinned in package-lock.json): if the SDK cannot talk to the emulator, the
// emulator is wrong. Starts a private emulator, points the SDK at it through
// its own URL overrides (E2B_API_URL, E2B_SANDBOX_URL) and runs create,
// commands.run (streamed output, exit code), a command that times out,
// binary files.write/files.read, list and kill. Exits non-zero on any
// mismatch.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sandbox, CommandExitError, TimeoutError, NotFoundError } from 'e2b';

const here = dirname(fileURLToPath(import.meta.url));
const emulatorPy = process.env.E2B_EMULATOR || join(here, '..', 'emulator', 'e2bemu.py');
let failures = 0;
let checks = 0;

function check(cond, what, detail) {
  checks++;
  if (cond) {
    console.log(`ok - ${what}`);
  } else {
    failures++;
    console.log(`not ok - ${what}${detail !== undefined ? `: ${detail}` : ''}`);
  }
}

async function startEmulator(apiKey) {
  const dir = mkdtempSync(join(tmpdir(), 'e2b-oracle-'));
  const portFile = join(dir, 'ports');
  const child = spawn(process.env.PYTHON3 || 'python3',
    [emulatorPy, '--port-file', portFile, '--parent-pid', String(process.pid), '--idle-timeout', '120'],
    { env: { ...process.env, E2B_EMU_API_KEY: apiKey }, stdio: ['ignore', 'inherit', 'inherit'] });
  for (let i = 0; i < 200 && !existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(portFile)) throw new Error('the emulator did not start');
  const [api, sbx] = readFileSync(portFile, 'utf8').trim().split(' ').map(Number);
  return { child, dir, api: `http://127.0.0.1:${api}`, sandbox: `http://127.0.0.1:${sbx}` };
}

async function admin(emu, path, init) {
  const res = await fetch(`${emu.api}/__emu__/${path}`, init);
  return res.json();
}

async function main() {
  const apiKey = `e2b_${randomBytes(20).toString('hex')}`;
  const emu = await startEmulator(apiKey);
  process.env.E2B_API_KEY = apiKey;
  process.env.E2B_API_URL = emu.api;
  process.env.E2B_SANDBOX_URL = emu.sandbox;
  try {
    await run(emu);
  } finally {
    await admin(emu, 'shutdown', { method: 'POST' }).catch(() => {});
    await new Promise((r) => { emu.child.once('exit', r); setTimeout(r, 5000); });
    rmSync(emu.dir, { recursive: true, force: true });
  }
}

async function run(emu) {
  const sbx = await Sandbox.create('base', {
    timeoutMs: 120_000,
    metadata: { oracle: 'sdk', run: String(process.pid) },
    envs: { ORACLE_ENV: 'from-create' },
  });
  check(/^[a-z0-9]+$/.test(sbx.sandboxId), 'create returns a sandbox id', sbx.sandboxId);

  // commands.run: streamed stdout/stderr and a non-zero exit code
  const seenOut = [];
  const seenErr = [];
  let exitErr = null;
  try {
    await sbx.commands.run('echo out1; echo err1 >&2; echo out2; exit 3', {
      onStdout: (d) => seenOut.push(d),
      onStderr: (d) => seenErr.push(d),
    });
  } catch (e) {
    exitErr = e;
  }
  check(exitErr instanceof CommandExitError, 'non-zero exit raises CommandExitError', exitErr && exitErr.name);
  if (exitErr instanceof CommandExitError) {
    check(exitErr.exitCode === 3, 'exit code 3 from the end event', exitErr.exitCode);
    check(exitErr.stdout === 'out1\nout2\n', 'stdout collected', JSON.stringify(exitErr.stdout));
    check(exitErr.stderr === 'err1\n', 'stderr collected', JSON.stringify(exitErr.stderr));
  }
  check(seenOut.join('') === 'out1\nout2\n', 'stdout streamed through onStdout', JSON.stringify(seenOut));
  check(seenErr.join('') === 'err1\n', 'stderr streamed through onStderr', JSON.stringify(seenErr));

  const ok = await sbx.commands.run('printf "%s" "$ORACLE_ENV"; printf " $CALL_ENV"', { envs: { CALL_ENV: 'per-call' } });
  check(ok.exitCode === 0, 'exit code 0 (omitted on the wire) reads as 0', ok.exitCode);
  check(ok.stdout === 'from-create per-call', 'create and per-call env reach the process', JSON.stringify(ok.stdout));

  // a command that times out
  const t0 = Date.now();
  let timeoutErr = null;
  try {
    await sbx.commands.run('sleep 30', { timeoutMs: 1000 });
  } catch (e) {
    timeoutErr = e;
  }
  check(timeoutErr instanceof TimeoutError, 'a command past its timeout raises TimeoutError',
    timeoutErr && `${timeoutErr.name}: ${timeoutErr.message}`);
  check(Date.now() - t0 < 15000, 'the timeout ends the command promptly', Date.now() - t0);
  const after = await sbx.commands.run('echo alive');
  check(after.stdout === 'alive\n', 'the sandbox still works after a timeout', JSON.stringify(after.stdout));

  // binary files, multipart (the SDK's default) and octet-stream uploads
  const blob = new Uint8Array(4096);
  for (let i = 0; i < blob.length; i++) blob[i] = (i * 7 + 3) % 256;
  await sbx.files.write('/home/user/data/blob.bin', blob);
  const back = await sbx.files.read('/home/user/data/blob.bin', { format: 'bytes' });
  check(back.length === blob.length && back.every((b, i) => b === blob[i]), 'binary multipart write/read round-trips',
    back.length);
  await sbx.files.write('/tmp/raw.bin', blob.slice(0, 100), { useOctetStream: true });
  const raw = await sbx.files.read('/tmp/raw.bin', { format: 'bytes' });
  check(raw.length === 100 && raw.every((b, i) => b === blob[i]), 'binary octet-stream write/read round-trips', raw.length);
  const cat = await sbx.commands.run('wc -c < data/blob.bin');
  check(cat.stdout.trim() === '4096', 'files and commands share the home directory', JSON.stringify(cat.stdout));
  let missing = null;
  try {
    await sbx.files.read('/home/user/nope.txt');
  } catch (e) {
    missing = e;
  }
  check(missing instanceof NotFoundError, 'reading a missing file raises NotFoundError', missing && missing.name);
  const entries = await sbx.files.list('/home/user/data');
  check(entries.length === 1 && entries[0].name === 'blob.bin' && entries[0].size === 4096 && entries[0].type === 'file',
    'files.list sees the file with its size', JSON.stringify(entries));
  check(await sbx.files.exists('/home/user/data'), 'files.exists (Stat) sees the directory');

  // list, filtered by metadata
  const listed = await Sandbox.list({ query: { metadata: { oracle: 'sdk' } } }).nextItems();
  check(listed.length === 1 && listed[0].sandboxId === sbx.sandboxId, 'Sandbox.list filters by metadata',
    JSON.stringify(listed.map((s) => s.sandboxId)));
  const none = await Sandbox.list({ query: { metadata: { oracle: 'other' } } }).nextItems();
  check(none.length === 0, 'Sandbox.list with a non-matching filter is empty', none.length);
  check(await sbx.isRunning(), 'isRunning (envd /health) is true while alive');

  // kill
  await sbx.kill();
  const gone = await Sandbox.list({ query: { metadata: { oracle: 'sdk' } } }).nextItems();
  check(gone.length === 0, 'a killed sandbox is no longer listed', gone.length);
  check((await Sandbox.kill(sbx.sandboxId)) === false, 'killing it again reports not found (404)');

  const state = await admin(emu, 'state');
  check(state.live === 0, 'no sandbox is left in the emulator', state.live);
  const v = await admin(emu, 'violations');
  check(v.violations.length === 0, 'the SDK made no request the emulator judged against the spec',
    JSON.stringify(v.violations));
}

main().then(() => {
  console.log(`${checks - failures} passed, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}, (e) => {
  console.log(`not ok - the oracle crashed: ${e && e.stack ? e.stack : e}`);
  console.log(`${checks - failures} passed, ${failures + 1} failed`);
  process.exit(1);
});
