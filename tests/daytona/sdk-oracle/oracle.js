// SPDX-License-Identifier: MIT
// Daytona's own TypeScript SDK (@daytonaio/sdk, pinned in package-lock.json)
// against the emulator, through the SDK's own apiUrl setting. If the SDK can
// create, wait until started, run a command, upload and download a file,
// list and delete against the emulator, the emulator speaks the protocol the
// way Daytona's client expects it. Any mismatch exits non-zero.
//
//   node oracle.js EMULATOR_URL
'use strict'

const assert = require('node:assert/strict')
const { Daytona, DaytonaNotFoundError } = require('@daytonaio/sdk')

const base = process.argv[2]
if (!base) {
  console.error('usage: node oracle.js EMULATOR_URL')
  process.exit(64)
}
// A key of its own: the emulator keeps one organisation per key, so this run
// never sees another test's sandboxes or faults.
const apiKey = 'dtn_sdkoracle' + String(process.pid).padStart(8, '0') + 'x'.repeat(16)

async function control(path, body) {
  const res = await fetch(base + path, {
    method: body ? 'POST' : 'GET',
    headers: { 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  })
  assert.equal(res.status, 200, `emulator control ${path} answered ${res.status}`)
  return res.json()
}

async function step(name, fn) {
  process.stdout.write(`- ${name} ... `)
  const out = await fn()
  console.log('ok')
  return out
}

async function main() {
  // A realistic start delay so waitUntilStarted really polls, and one item
  // per page so list() has to follow nextCursor.
  await control('/_emulator/org', { apiKey, settings: { startDelay: 0.6, pageSize: 1 } })
  const daytona = new Daytona({ apiKey, apiUrl: base + '/api', target: 'us' })
  const created = []
  const deletedIds = []

  try {
    const sandbox = await step('create and wait until started', async () => {
      const t0 = Date.now()
      const sb = await daytona.create(
        { labels: { oracle: 'yes' }, envVars: { ORACLE_GREETING: 'hello' }, autoStopInterval: 5, networkBlockAll: true },
        { timeout: 30 },
      )
      created.push(sb)
      assert.equal(sb.state, 'started')
      assert.ok(Date.now() - t0 >= 500, 'create returned before the start delay passed')
      assert.equal(sb.labels.oracle, 'yes')
      assert.equal(sb.labels['code-toolbox-language'], 'python')
      assert.equal(sb.networkBlockAll, true)
      return sb
    })

    await step('process.executeCommand', async () => {
      const r = await sandbox.process.executeCommand('echo "$ORACLE_GREETING from $(basename $PWD)"; echo oops >&2; exit 3')
      assert.equal(r.exitCode, 3)
      assert.equal(r.result, 'hello from daytona\noops\n') // one combined stream
      const env = await sandbox.process.executeCommand('printf %s "$A-$B"', undefined, { A: '1', B: 'two words' })
      assert.equal(env.exitCode, 0)
      assert.equal(env.result, '1-two words')
      const cwd = await sandbox.process.executeCommand('mkdir -p sub && cd sub && pwd >/dev/null && echo in-sub')
      assert.equal(cwd.result, 'in-sub\n')
    })

    await step('process.executeCommand timeout', async () => {
      await assert.rejects(sandbox.process.executeCommand('sleep 5', undefined, undefined, 1), (e) => {
        assert.equal(e.statusCode, 408)
        return true
      })
    })

    const payload = Buffer.concat([Buffer.from('binary\x00payload\n'), Buffer.from([0xff, 0xfe, 0x00, 0x80])])
    await step('fs.uploadFile (bulk-upload, chunked multipart)', async () => {
      await sandbox.fs.uploadFile(payload, 'oracle/data.bin')
      const listing = await sandbox.fs.listFiles('oracle')
      assert.deepEqual(
        listing.map((f) => [f.name, f.size, f.isDir]),
        [['data.bin', payload.length, false]],
      )
    })

    await step('fs.downloadFile (bulk-download, multipart answer)', async () => {
      const back = await sandbox.fs.downloadFile('oracle/data.bin')
      assert.ok(Buffer.isBuffer(back))
      assert.ok(back.equals(payload), 'downloaded bytes differ from the uploaded ones')
      await assert.rejects(sandbox.fs.downloadFile('oracle/missing.bin'), /not found/)
    })

    await step('list (paged through nextCursor)', async () => {
      const second = await daytona.create({ labels: { oracle: 'yes' } }, { timeout: 30 })
      created.push(second)
      const ids = []
      for await (const sb of daytona.list({ labels: { oracle: 'yes' } })) ids.push(sb.id)
      assert.deepEqual(ids.sort(), [sandbox.id, second.id].sort())
    })

    await step('get and the not-found error', async () => {
      const again = await daytona.get(sandbox.id)
      assert.equal(again.id, sandbox.id)
      await assert.rejects(daytona.get('no-such-sandbox'), DaytonaNotFoundError)
    })

    await step('delete', async () => {
      for (const sb of created.splice(0)) {
        deletedIds.push(sb.id)
        await daytona.delete(sb)
      }
      await new Promise((r) => setTimeout(r, 300)) // destroying -> destroyed
      const ids = []
      for await (const sb of daytona.list({ labels: { oracle: 'yes' } })) ids.push(sb.id)
      assert.deepEqual(ids, [])
    })
  } finally {
    for (const sb of created) await daytona.delete(sb).catch(() => {})
  }

  await step('every request the SDK sent was valid', async () => {
    const reqs = await control('/_emulator/requests?apiKey=' + apiKey)
    // The timeout test's 408, the not-found test's 404, and the SDK's own
    // refresh after a delete, which may find the sandbox already gone.
    const notFoundOk = ['/sandbox/no-such-sandbox', ...deletedIds.map((id) => '/sandbox/' + id)]
    const expectedFailures = (r) =>
      (r.status === 408 && r.surface === 'toolbox' && r.path === '/process/execute') ||
      (r.status === 404 && r.surface === 'api' && r.method === 'GET' && notFoundOk.includes(r.path))
    const bad = reqs.filter((r) => r.status >= 400 && !expectedFailures(r))
    assert.deepEqual(bad, [], 'the emulator refused requests the SDK sent')
    const create = reqs.find((r) => r.method === 'POST' && r.path === '/sandbox')
    assert.equal(create.status, 200, 'create answers 200, not 201')
    assert.ok(reqs.every((r) => r.bearer), 'every request carried the Bearer key')
    assert.ok(reqs.some((r) => r.surface === 'toolbox' && r.path === '/files/bulk-upload'))
  })
  console.log('SDK oracle: the emulator behaves as @daytonaio/sdk expects')
}

main().catch((e) => {
  console.error('\nFAILED:', e && e.stack ? e.stack : e)
  process.exit(1)
})
