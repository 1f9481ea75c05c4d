// Creates arriving back to back while writes are on their way to disk: every one is acknowledged
// (no 503 from writers tripping over each other) and a restart finds every one of them. Readers
// run alongside, so that requests reach the server at every moment of a write's life; the
// server runs in its own process, as in a user's CI.
import t from 'tap'
import { join } from 'node:path'
import { API_KEY, AUTH, postPet, spawnCli, tempDir } from '../support/sandbox.js'

const WORKERS = 8
const CREATES_PER_WORKER = 150

t.test(
  `${WORKERS} clients creating back to back: all ${WORKERS * CREATES_PER_WORKER} acknowledged and kept`,
  async (t) => {
    const dataFile = join(await tempDir(t), 'db.json')
    const sandbox = await spawnCli(t, { API_KEYS: API_KEY, DATA_FILE: dataFile })
    let writing = true
    const readers = Array.from({ length: 4 }, async () => {
      while (writing) await (await fetch(`${sandbox.baseUrl}/pets?limit=5`, { headers: AUTH })).arrayBuffer()
    })
    const failures: string[] = []
    const ids: number[] = []
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        for (let i = 0; i < CREATES_PER_WORKER; i++) {
          const res = await postPet(sandbox.baseUrl, { name: `Load ${w}-${i}`, categoryId: i })
          const body = (await res.json()) as { id: number; message?: string }
          if (res.status === 201) ids.push(body.id)
          else failures.push(`${res.status}: ${body.message}`)
        }
      }),
    )
    writing = false
    await Promise.all(readers)
    t.same(failures.slice(0, 3), [], 'every create is acknowledged')
    t.equal(new Set(ids).size, ids.length, 'no id is given twice')
    sandbox.child.kill('SIGTERM')
    t.equal(await sandbox.exited, 0, 'the server stops cleanly')
    const restarted = await spawnCli(t, { API_KEYS: API_KEY, DATA_FILE: dataFile })
    const missing: number[] = []
    for (const id of ids)
      if ((await fetch(`${restarted.baseUrl}/pets/${id}`, { headers: AUTH })).status !== 200) missing.push(id)
    t.same(missing, [], 'a restart finds every acknowledged pet')
  },
)
