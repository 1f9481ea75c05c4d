// The image on the PostgreSQL store: two containers on one DATABASE_URL (a real PostgreSQL the test
// starts on loopback, reached over the host's network) share their pets, and the image's healthcheck
// says healthy. The bundled command loads `pg`, a production dependency, only with DATABASE_URL,
// which wins over the image's DATA_FILE: no data file is written.
import t from 'tap'
import { docker, dockerSkipReason, ensureImage, runContainer } from '../support/docker.js'
import { postgresSkip, startPostgres } from '../support/postgres.js'
import { waitFor } from '../support/sandbox.js'

const KEY = 'shared-container-key'
const API = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }

// A cold build (two npm installs) on a shared machine takes minutes, not the default 120 s.
t.setTimeout(15 * 60_000)
const skip = (await dockerSkipReason(t)) ?? postgresSkip(t)

t.test('two containers of the image on one DATABASE_URL share their pets and are healthy', { skip }, async (t) => {
  const [db] = await Promise.all([startPostgres(t), ensureImage()])
  // The image's healthcheck every second, so that its first verdict comes soon.
  const options = { env: { DATABASE_URL: db.url, API_KEYS: KEY }, args: ['--health-interval=1s'], hostNetwork: true }
  const [one, two] = await Promise.all([runContainer(t, options), runContainer(t, options)])

  const created = await fetch(`${one.origin}/v1/pets`, {
    method: 'POST',
    headers: API,
    body: JSON.stringify({ name: 'Shared', categoryId: 1 }),
  })
  t.equal(created.status, 201, 'created through one container')
  const { id } = (await created.json()) as { id: number }
  const read = await fetch(`${two.origin}/v1/pets/${id}`, { headers: API })
  t.equal(read.status, 200, 'read through the other')
  t.match(await read.json(), { id, name: 'Shared' })
  t.same(
    await db.query("SELECT pet->>'name' AS name FROM pets WHERE id = $1", [id]),
    [{ name: 'Shared' }],
    'the pet is in the database',
  )

  for (const { id: container } of [one, two]) {
    await waitFor(
      async () => (await docker('inspect', '--format', '{{.State.Health.Status}}', container)) === 'healthy',
      { what: `container ${container.slice(0, 12)} to be healthy`, timeoutMs: 60_000, intervalMs: 250 },
    )
    const changed = await docker('diff', container)
    t.notMatch(changed, /\/data\/db\.json/, 'DATABASE_URL wins over DATA_FILE: no data file')
  }
})
