// The image for real: built from this checkout, run with `docker run` and through the
// Testcontainers module, against a real engine. Skips without one, fails under REQUIRE_DOCKER=1.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t, { type Test } from 'tap'
import { parse } from 'yaml'
import { AnimalStoreContainer, DEFAULT_IMAGE, type StartedAnimalStoreContainer } from '../../modules/node/src/index.js'
import { DOCKER, IMAGE, docker, dockerSkipReason, ensureImage, runContainer, usageSnippets } from '../support/docker.js'
import { loadSpec } from '../../src/contract/load.js'
import { generateAnimals } from '../../src/store/seed.js'
import { ROOT, freePort, postPet, tempDir, waitFor } from '../support/sandbox.js'
import { mustRun } from '../support/system-programs.js'

const KEY = 'container-key'
const auth = (key = KEY): Record<string, string> => ({ authorization: `Bearer ${key}` })
interface Pet {
  id: number
  name: string
  categoryId: number
  status?: string
}

// A cold build (two npm installs) on a shared machine takes minutes, not the default 120 s.
t.setTimeout(15 * 60_000)
const skip = (await dockerSkipReason(t)) ?? false
if (skip) t.comment(`skipping the container tests: ${skip}`)

t.test('npm run image builds a multi-stage, non-root image from this checkout', { skip }, async (t) => {
  await ensureImage()
  const config = JSON.parse(await docker('image', 'inspect', IMAGE, '--format', '{{json .Config}}'))
  t.matchStrict(config, {
    User: '1000:1000', // the non-root node user
    ExposedPorts: { '4010/tcp': {} },
    Entrypoint: ['node', 'dist/cli.js'], // exec form: node is PID 1
    Healthcheck: { Test: ['CMD', 'node', 'dist/healthcheck.js'] }, // node, no curl
  })
  t.notOk(config.Volumes && '/data' in config.Volumes, 'no VOLUME: a run that asks for no data volume leaves none')
  const declared = (config.Env as string[]).map((entry) => entry.split('=')[0])
  for (const name of ['PORT', 'API_KEYS', 'SEED', 'SEED_COUNT', 'FIXTURES', 'LOG_LEVEL'])
    t.ok(declared.includes(name), `${name} is declared as an env var`)
  t.notOk(declared.includes('NODE_EXTRA_CA_CERTS'), 'the build-time CA setting is not in the runtime image')
  t.ok(config.Env.includes('HOST=0.0.0.0') && config.Env.includes('DATA_FILE=/data/db.json'))
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }
  t.equal(DEFAULT_IMAGE, `animal-store-sandbox:${version}`, 'the module defaults to the tag of its version')
  await t.resolves(docker('image', 'inspect', DEFAULT_IMAGE), 'and npm run image tags the image with it')

  // The CA bundle was a build secret: no layer of the final image holds it, nor any build input.
  const files = await listImageFiles(t)
  t.ok(files.includes('app/dist/cli.js'), 'compiled JS is in the image')
  t.same(
    files.filter((file) => /^(run\/secrets|app\/src|app\/node_modules\/typescript)\//.test(file)),
    [],
    'no secret in any layer, no TypeScript sources, no dev dependencies',
  )
  const layers = await docker('history', IMAGE, '--format', '{{.Size}}\t{{.CreatedBy}}')
  t.comment(`image layers, newest first (the base is the last):\n${layers}`)
})

t.test(
  'non-root, turns healthy, stops on SIGTERM with exit 0, and a restart on its /data volume finds the pet',
  { skip },
  async (t) => {
    await ensureImage()
    const volume = `animal-store-test-${randomUUID().slice(0, 8)}`
    t.teardown(() => docker('volume', 'rm', '-f', volume).catch(() => undefined))
    const env = { SEED: '11', API_KEYS: KEY }
    // The image checks every 30 s; this test asks for every 0.2 s to see the check pass.
    const { id, origin } = await runContainer(t, { env, volume, args: ['--health-interval', '200ms'] })
    const uid = "require('fs').readFileSync('/proc/1/status', 'utf8').match(/^Uid:.*$/m)[0]"
    t.match(await docker('exec', id, 'node', '-p', uid), /^Uid:\s+1000\s/, 'PID 1 runs as uid 1000')
    t.equal(
      await docker('inspect', '--format', '{{range .Mounts}}{{.Name}} {{end}}', id),
      volume,
      'no anonymous volume',
    )
    const health = (): Promise<string> => docker('inspect', '--format', '{{.State.Health.Status}}', id)
    await waitFor(async () => (await health()) === 'healthy', { what: 'the HEALTHCHECK', timeoutMs: 120_000 })
    await t.rejects(
      docker('exec', '-e', 'PORT=4011', id, 'node', 'dist/healthcheck.js'),
      'the healthcheck fails where nothing answers',
    )
    const created = await postPet(`${origin}/v1`, { name: 'Persistent Parrot', categoryId: 3 }, auth())
    t.equal(created.status, 201)
    const pet = (await created.json()) as Pet
    // A container that ignored SIGTERM would be killed after --time and exit 137; 20 s, not 2, so
    // that a busy machine's slow but clean stop is not taken for that.
    await docker('stop', '--time', '20', id)
    t.equal(await docker('inspect', '--format', '{{.State.ExitCode}}', id), '0', 'exits 0 on its own')

    const second = await runContainer(t, { env, volume })
    const fetched = await fetch(`${second.origin}/v1/pets/${pet.id}`, { headers: auth() })
    t.same([fetched.status, await fetched.json()], [200, pet], 'the restart finds the created pet')
  },
)

// An arbitrary user id in group 0, as OpenShift runs images; the image listens on every interface,
// so its control API needs a token of its own.
t.test(
  'as any user of group 0: the data file, no cache warning; connection-reset and empty-response; /mcp',
  { skip },
  async (t) => {
    await ensureImage()
    const env = { API_KEYS: KEY, ADMIN_TOKEN: 'container-admin' }
    const { id, origin } = await runContainer(t, { env, args: ['--user', '123456:0'] })
    const created = await postPet(`${origin}/v1`, { name: 'Anyone', categoryId: 1 }, auth())
    t.equal(created.status, 201, 'the create is on disk under /data')

    // Through the published port, both faults close the connection without an answer.
    const admin = { authorization: 'Bearer container-admin', 'content-type': 'application/json' }
    for (const fault of ['connection-reset', 'empty-response']) {
      const armed = await fetch(`${origin}/__admin/faults`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ operationId: 'listPets', fault, times: 1 }),
      })
      t.equal(armed.status, 201)
      const error = await fetch(`${origin}/v1/pets`, { headers: auth() }).then(
        () => undefined,
        (error: unknown) => error,
      )
      t.type(error, TypeError, `${fault}: fetch rejects (docs/control-api.md says what the client sees)`)
      t.equal((await fetch(`${origin}/v1/pets`, { headers: auth() })).status, 200, `${fault}: once`)
    }

    // The bundle leaves the MCP SDK out: the image's production node_modules must hold it.
    const client = new Client({ name: 'container-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', origin), {
        requestInit: { headers: { authorization: 'Bearer container-admin' } },
      }),
    )
    t.teardown(() => client.close())
    const viaMcp = await client.callTool({
      name: 'createPet',
      arguments: { namespace: 'mcp', body: { name: 'Rex', categoryId: 2 } },
    })
    t.match(viaMcp.structuredContent, { status: 201, body: { name: 'Rex' } })

    // Node files its compile cache by uid: this one finds none and cannot add to the read-only folder.
    const { stderr } = await promisify(execFile)(DOCKER, ['logs', id])
    t.notMatch(stderr, /warning|compile cache/i, 'nothing said about the cache')
  },
)

t.test('AnimalStoreContainer: withSeed and withSeedCount give the pets the seed generates', { skip }, async (t) => {
  await ensureImage()
  const sandbox = await startContainer(t, new AnimalStoreContainer(IMAGE).withSeed(7).withSeedCount(30).withApiKey(KEY))
  t.match(sandbox.getBaseUrl(), /^http:\/\/[^/]+:\d+\/v1$/)
  t.equal(sandbox.getApiKey(), KEY)
  t.equal(
    await docker('inspect', '--format', '{{json .Config.Healthcheck.Test}}', sandbox.getId()),
    '["NONE"]',
    'the module waits over HTTP and turns the image’s HEALTHCHECK off',
  )
  // The generator's own determinism (another seed, other pets) is test/store/seed.test.ts's.
  const seeded = await generateAnimals((await loadSpec()).schemas['Pet'] ?? {}, 7, 30)
  const listed = await fetch(`${sandbox.getBaseUrl()}/pets?limit=100`, { headers: auth() })
  t.same(await listed.json(), seeded, 'the 30 pets of seed 7')
  t.equal((await fetch(`${sandbox.getBaseUrl()}/pets`)).status, 401, 'no key, no pets')
})

t.test('AnimalStoreContainer: withFixtures copies the file into the container', { skip }, async (t) => {
  await ensureImage()
  const file = join(await tempDir(t), 'my-pets.json')
  const fixtures = [
    { id: 1, name: 'Fixture Fox', categoryId: 1, status: 'available' },
    { id: 2, name: 'Fixture Finch', categoryId: 2, status: 'sold' },
  ]
  await writeFile(file, JSON.stringify(fixtures))
  const sandbox = await startContainer(t, new AnimalStoreContainer(IMAGE).withFixtures(file).withApiKey(KEY))
  t.same(await (await fetch(`${sandbox.getBaseUrl()}/pets`, { headers: auth() })).json(), fixtures)
  await t.rejects(
    new AnimalStoreContainer(IMAGE).withFixtures(file).withSeed(3).start(),
    /both choose the initial data/,
  )
})

t.test('README: the docker run snippet works as written', { skip }, async (t) => {
  await ensureImage()
  const snippets = usageSnippets('sh')
  t.equal(snippets.length, 1, 'one shell snippet')
  // Only the host port (any free one) and the container's name change, so parallel runs cannot clash.
  const port = await freePort()
  const name = `animal-store-readme-${randomUUID().slice(0, 8)}`
  const script = (snippets[0] ?? '')
    .replaceAll('-p 4010:4010', `-p 127.0.0.1:${port}:4010`)
    .replaceAll('localhost:4010', `localhost:${port}`)
    .replaceAll(/(--name|docker stop) animal-store\b/g, `$1 ${name}`)
  t.equal((script.match(new RegExp(name, 'g')) ?? []).length, 2, 'the name was replaced in docker run and docker stop')
  t.teardown(() => docker('rm', '-f', name).catch(() => undefined))
  const { stdout } = await mustRun(
    'bash',
    ['-euo', 'pipefail', '-c', script],
    ROOT,
    { PATH: `/usr/bin:${process.env['PATH']}` },
    60_000,
  )
  // curl prints the body without a final newline: docker stop's output follows on the same line.
  const pets = JSON.parse(/^\[.*\]/m.exec(stdout)?.[0] ?? 'null') as Pet[]
  t.same(
    pets.map((pet) => pet.id),
    [1, 2],
    'the curl line lists two pets',
  )
  // docker stop returns once the container has stopped; the engine removes a --rm container a
  // moment later: wait, bounded, for it to go.
  const listed = (): Promise<string> => docker('ps', '-aq', '--filter', `name=${name}`)
  await waitFor(async () => (await listed()) === '', {
    what: `docker ps -a to no longer list ${name} (--rm)`,
    timeoutMs: 30_000,
    intervalMs: 200,
  })
  t.equal(await listed(), '', 'docker stop ended it and --rm removed it')
})

t.test('README: the compose service starts and its healthcheck passes', { skip }, async (t) => {
  await ensureImage()
  const snippets = usageSnippets('yaml')
  t.equal(snippets.length, 1, 'one compose snippet')
  const { services } = parse(snippets[0] ?? '') as { services: Record<string, any> }
  const service = services['animal-store']
  t.matchStrict(service, { image: IMAGE, ports: ['4010:4010'], healthcheck: { test: ['CMD'] } })
  t.equal(services['tests']?.depends_on?.['animal-store']?.condition, 'service_healthy')
  const { id, origin } = await runContainer(t, { env: service.environment, image: service.image })
  await t.resolves(docker('exec', id, ...service.healthcheck.test.slice(1)), 'the healthcheck command exits 0')
  const pets = await fetch(`${origin}/v1/pets`, { headers: auth(service.environment.API_KEYS) })
  t.equal(pets.status, 200, 'the service accepts its configured key')
})

/** Starts a module container and stops it (volumes too) when the test ends. */
async function startContainer(t: Test, container: AnimalStoreContainer): Promise<StartedAnimalStoreContainer> {
  const started = await container.start()
  t.teardown(() => started.stop({ remove: true, removeVolumes: true }))
  return started
}

/** Every path in the image's file system, e.g. `app/dist/cli.js`. */
async function listImageFiles(t: Test): Promise<string[]> {
  const id = await docker('create', IMAGE)
  t.teardown(() => docker('rm', '-f', '-v', id).catch(() => undefined))
  const { stdout } = await mustRun('bash', ['-c', `set -o pipefail; "${DOCKER}" export "$0" | tar -t`, id], ROOT)
  return stdout.split('\n').map((line) => line.replace(/^\.\//, ''))
}
