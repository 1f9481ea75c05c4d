// The control API's writes on a disk that refuses them: a 503 with Retry-After, as a create's,
// and nothing changed; once the disk takes writes again, they go through.
import { join } from 'node:path'
import t from 'tap'
import { FaultyFileSystem } from '../store/faulty-file-system.js'
import { ADMIN_AUTH, call } from '../support/control.js'
import { AUTH, startTestSandbox, tempDir } from '../support/sandbox.js'

t.test('reset and replace on a full disk: 503, the store as it was, then 200 once it has room', async (t) => {
  const dataFile = join(await tempDir(t), 'db.json')
  const fs = new FaultyFileSystem(dataFile)
  const { origin, baseUrl } = await startTestSandbox(
    t,
    { DATA_FILE: dataFile, ADMIN_TOKEN: 'test-admin-token' },
    {},
    { fileSystem: fs },
  )
  const before = await (await fetch(`${baseUrl}/pets?limit=100`, { headers: AUTH })).json()

  // Every write fails, as on a full disk: of a new snapshot (a replace) and of the journal (a reset's line).
  fs.arm(
    { call: 'write', target: 'temp snapshot', failure: 'ENOSPC', nth: 1, persistent: true },
    { call: 'write', target: 'journal', failure: 'ENOSPC', nth: 1, persistent: true },
  )
  for (const [method, path, body] of [
    ['POST', '/reset', { seed: 3, count: 4 }],
    ['PUT', '/pets', [{ id: 1, name: 'Only', categoryId: 1 }]],
  ] as const) {
    const refused = await call(`${origin}/__admin${path}`, method, body, ADMIN_AUTH)
    t.equal(refused.status, 503, `${method} ${path}: 503`)
    t.equal(refused.headers.get('retry-after'), '1')
    t.match(refused.body, { code: 'storage_unavailable', message: /Nothing was changed/ })
    t.same(
      await (await fetch(`${baseUrl}/pets?limit=100`, { headers: AUTH })).json(),
      before,
      'the pets are as they were',
    )
  }

  fs.clear()
  const reset = await call(`${origin}/__admin/reset`, 'POST', { seed: 3, count: 4 }, ADMIN_AUTH)
  t.equal(reset.status, 200, 'with room again, the reset goes through')
  t.equal(((await (await fetch(`${baseUrl}/pets?limit=100`, { headers: AUTH })).json()) as unknown[]).length, 4)
})
