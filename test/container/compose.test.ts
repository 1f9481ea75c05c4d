// deploy/compose.yaml and deploy/haproxy.cfg: as Compose reads the file (`config`), as `haproxy -c`
// reads the configuration, and for real: `up` with the sandbox image and the registry-free stand-ins
// for the official postgres and haproxy images (scripts/build-local-images.sh), on a free port. Pets
// created through HAProxy are read back through it, each replica answers (haproxy.cfg's
// X-Served-By), a fault armed through it fires once across the replicas; then `down -v`. Everything
// the project made is removed by its name when the test ends, whatever happened.
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import {
  IMAGE,
  LOCAL_IMAGES,
  composeCommand,
  docker,
  dockerSkipReason,
  ensureImage,
  ensureLocalImages,
} from '../support/docker.js'
import { call as callJson } from '../support/replicas.js'
import { ROOT, freePort, waitFor } from '../support/sandbox.js'
import { REQUIRE_PROGRAMS, mustRun, runProgram, skipWithout } from '../support/system-programs.js'

const KEY = 'compose-key'
const TOKEN = 'compose-admin-token'
const API = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }
const ADMIN = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
const REPLICAS = ['sandbox-1', 'sandbox-2', 'sandbox-3']
const FILE = join(ROOT, 'deploy/compose.yaml')
const HAPROXY_CFG = join(ROOT, 'deploy/haproxy.cfg')

// A cold build of the image on a shared machine takes minutes, not the default 120 s.
t.setTimeout(15 * 60_000)
const compose = await composeCommand()
const [program = 'docker-compose', ...composeArgs] = compose ?? []
let composeSkip: string | false = false
if (compose === undefined) {
  composeSkip = 'neither docker compose nor docker-compose is installed (.ci/run installs docker-compose)'
  if (REQUIRE_PROGRAMS) t.fail(`REQUIRE_PROGRAMS=1 but ${composeSkip}`)
}

t.test('compose config: replicas wait for PostgreSQL, official images on 4010', { skip: composeSkip }, async (t) => {
  const config = (env: Record<string, string>) => runProgram(program, [...composeArgs, '-f', FILE, 'config'], ROOT, env)
  // The images' and port's variables unset, whatever this machine's are: the defaults are what a user gets.
  const unset = { ANIMAL_STORE_IMAGE: '', POSTGRES_IMAGE: '', HAPROXY_IMAGE: '', SANDBOX_PORT: '' }
  const { services } = parse((await config({ ...unset, ADMIN_TOKEN: TOKEN })).stdout) as Record<string, any>
  for (const name of REPLICAS)
    t.equal(services[name].depends_on?.postgres?.condition, 'service_healthy', `${name} waits for PostgreSQL`)
  // Compose v1 and v2 write ports, volumes and tests in two forms: each is matched as text.
  const { postgres, haproxy } = services
  t.match(postgres.image, /^postgres:\d+$/, 'the official postgres image')
  t.match(JSON.stringify(postgres.healthcheck.test), /pg_isready/)
  t.match(JSON.stringify(postgres.volumes), /postgres-data/, 'its data on a volume')
  t.match(haproxy.image, /^haproxy:[\d.]+$/, 'the official haproxy image')
  t.match(JSON.stringify(haproxy.ports), /127\.0\.0\.1:4010:4010|"published":"?4010\b/, 'on port 4010')
  const tokenless = await config({ ADMIN_TOKEN: '' })
  t.not(tokenless.code, 0, 'no start without ADMIN_TOKEN')
  t.match(tokenless.output, /set ADMIN_TOKEN/)
})

t.test('haproxy.cfg: health checks on /readyz, no retry of a request that reached a replica', async (t) => {
  const cfg = await readFile(HAPROXY_CFG, 'utf8')
  t.match(cfg, /^\s*http-check send meth GET uri \/readyz$/m)
  t.same(
    [...cfg.matchAll(/^\s*retry-on (.+)$/gm)].map((match) => match[1]),
    ['conn-failure'],
  )
  if (skipWithout(t, 'haproxy', 'haproxy')) return
  const run = await mustRun('haproxy', ['-c', '-f', HAPROXY_CFG], ROOT, {}, 60_000)
  // The replicas' names resolve only inside compose's network; nothing else may be warned about.
  const warnings = run.output.split('\n').filter((line) => line.includes('[WARNING]'))
  t.same(
    warnings.filter((line) => !/could not resolve address 'sandbox-[123]'/.test(line)),
    [],
    'haproxy -c: no warning but the names',
  )
})

let skip: string | false = composeSkip || ((await dockerSkipReason(t)) ?? false)
// compose.yaml mounts deploy/haproxy.cfg: an engine on another root (this machine seen from a
// chroot) would mount an empty folder there instead, and HAProxy would start without its config.
if (!skip) {
  await ensureImage()
  const probe = ['--rm', '-v', `${HAPROXY_CFG}:/probe:ro`, '--entrypoint', 'node', IMAGE]
  const seen = await docker(
    'run',
    ...probe,
    '-e',
    "process.stdout.write(String(require('fs').statSync('/probe').isFile()))",
  )
  if (seen !== 'true')
    skip =
      "the Docker engine does not see this machine's files (it runs on another root), so compose's bind mounts would be empty"
}

interface Answer {
  status: number
  body: any
  servedBy: string | null
}

/** A call through the balancer (as the replicas' tests make it); the replica that answered too. */
async function call(url: string, init: Parameters<typeof callJson>[1] = {}): Promise<Answer> {
  const answer = await callJson(url, { headers: API, ...init })
  return { status: answer.status, body: answer.body, servedBy: answer.headers.get('x-served-by') }
}

/** Removes what the project made, by name: its containers (by the label Compose gives them), network and volume. */
async function removeProject(project: string): Promise<void> {
  const ids = await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`).catch(() => '')
  if (ids) await docker('rm', '-f', '-v', ...ids.split('\n')).catch(() => undefined)
  await docker('network', 'rm', `${project}_default`).catch(() => undefined)
  await docker('volume', 'rm', `${project}_postgres-data`).catch(() => undefined)
}

t.test('compose up: three replicas on PostgreSQL behind HAProxy, then down -v', { skip }, async (t) => {
  await Promise.all([ensureImage(), ensureLocalImages()])
  const project = `animal-store-compose-${randomBytes(4).toString('hex')}`
  const port = await freePort()
  const env = {
    ANIMAL_STORE_IMAGE: IMAGE,
    POSTGRES_IMAGE: LOCAL_IMAGES.postgres,
    HAPROXY_IMAGE: LOCAL_IMAGES.haproxy,
    SANDBOX_PORT: String(port),
    ADMIN_TOKEN: TOKEN,
    API_KEYS: KEY,
  }
  // Compose on the project, bounded in time.
  const run = (args: string[], timeoutMs = 120_000) =>
    runProgram(program, [...composeArgs, '-p', project, '-f', FILE, ...args], ROOT, env, timeoutMs)
  t.teardown(async () => {
    await run(['down', '-v', '--remove-orphans', '--timeout', '5'], 60_000)
    await removeProject(project)
  })
  const url = `http://127.0.0.1:${port}`
  const logs = async (): Promise<string> => (await run(['logs', '--no-color', '--tail', '20'], 30_000)).output

  const up = await run(['up', '-d'])
  t.equal(up.code, 0, 'compose up -d', { output: up.output })
  if (up.code !== 0) return

  // Each replica in turn, as HAProxy brings it in: two good health checks, 2 s apart.
  const answered = new Set<string>()
  await waitFor(
    async () => {
      const answer = await call(`${url}/v1/pets?limit=1`)
      if (answer.status === 200 && answer.servedBy) answered.add(answer.servedBy)
      return answered.size === REPLICAS.length
    },
    { what: `each replica to answer through HAProxy on ${url}`, timeoutMs: 120_000, intervalMs: 250 },
  ).catch(async (error: Error) => {
    throw new Error(`${error.message} (answered: ${[...answered].join(', ')})\n${await logs()}`)
  })
  t.same([...answered].sort(), REPLICAS, 'each replica answered through HAProxy')

  const created: Answer[] = []
  for (let i = 0; i < 6; i++) {
    created.push(await call(`${url}/v1/pets`, { method: 'POST', body: { name: `Compose ${i}`, categoryId: 1 } }))
  }
  t.same(
    created.map((answer) => answer.status),
    created.map(() => 201),
    'six pets created through HAProxy',
  )
  t.same([...new Set(created.map((answer) => answer.servedBy))].sort(), REPLICAS, 'by every replica')
  // Round robin: three reads in a row are served by the three replicas.
  for (const [i, { body }] of created.entries()) {
    const reads: Answer[] = []
    for (let n = 0; n < REPLICAS.length; n++) reads.push(await call(`${url}/v1/pets/${body.id as number}`))
    t.same(
      reads.map((answer) => [answer.status, answer.body?.name]),
      reads.map(() => [200, `Compose ${i}`]),
      `pet ${i} read back through HAProxy`,
    )
    t.same([...new Set(reads.map((answer) => answer.servedBy))].sort(), REPLICAS, 'by every replica')
  }

  // A namespace's calls, by its header or the control API's ?namespace=, all go to one replica.
  const namespaced: Answer[] = [
    await call(`${url}/__admin/reset?namespace=compose-ns`, { method: 'POST', headers: ADMIN, body: {} }),
  ]
  const inNamespace = { ...API, 'x-sandbox-namespace': 'compose-ns' }
  for (let i = 0; i < 3; i++) {
    namespaced.push(
      await call(`${url}/v1/pets`, { method: 'POST', headers: inNamespace, body: { name: 'Ns', categoryId: 1 } }),
    )
    namespaced.push(await call(`${url}/v1/pets?limit=1`, { headers: inNamespace }))
  }
  namespaced.push(await call(`${url}/__admin/requests?namespace=compose-ns&limit=0`, { headers: ADMIN }))
  t.same(
    namespaced.map((answer) => answer.status),
    [200, 201, 200, 201, 200, 201, 200, 200],
    'a namespace reset, used and read through HAProxy',
  )
  t.equal(namespaced.at(-1)?.body.count, 6, 'its journal holds its six API calls')
  const servers = [...new Set(namespaced.map((answer) => answer.servedBy))]
  t.equal(servers.length, 1, 'all sent to one replica')
  t.match(servers[0], /^sandbox-[123]$/)

  const armed = await call(`${url}/__admin/faults`, {
    method: 'POST',
    headers: ADMIN,
    body: { operationId: 'listPets', status: 503, after: 2, times: 1 },
  })
  t.equal(armed.status, 201, 'a fault armed through HAProxy')
  const lists: Answer[] = []
  for (let i = 0; i < 6; i++) lists.push(await call(`${url}/v1/pets?limit=1`))
  t.same(
    lists.map((answer) => answer.status),
    [200, 200, 503, 200, 200, 200],
    'the third listPets, whichever replica served it, got the fault, and no other',
  )
  t.match(lists[2], { body: { status: 503 }, servedBy: /^sandbox-[123]$/ }, 'from a replica, as an Error body')
  t.same([...new Set(lists.map((answer) => answer.servedBy))].sort(), REPLICAS, 'the six calls went to every replica')
  const faults = await call(`${url}/__admin/faults`, { headers: ADMIN })
  t.match(faults.body.faults, [{ seen: 6, fired: 1 }], 'seen six times, fired once')

  const down = await run(['down', '-v', '--timeout', '5'])
  t.equal(down.code, 0, 'compose down -v', { output: down.output })
  t.equal(await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`), '', 'no container left')
  await t.rejects(docker('volume', 'inspect', `${project}_postgres-data`), 'the database volume is gone')
})
