// The Testcontainers module of modules/node: the sandbox checks its settings and a failed start
// rejects with the sandbox's own line; its credentials are what was configured; it removes what a
// failed start made; withTls() serves HTTPS and HTTP/2 that a client trusts through getTlsCa() (and
// the module's own wait and control client do). The first tests need no Docker.
import { randomUUID, X509Certificate } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { connect as http2Connect } from 'node:http2'
import { request as httpsRequest, type RequestOptions } from 'node:https'
import { join } from 'node:path'
import t from 'tap'
import {
  ANIMAL_STORE_PORT,
  AnimalStoreContainer,
  DEFAULT_ADMIN_TOKEN,
  DEFAULT_API_KEY,
  DEFAULT_IMAGE,
  IN_MEMORY,
  TLS_CA_FILE,
} from '../../modules/node/src/index.js'
import * as server from '../../src/config.js'
import { IMAGE, docker, dockerSkipReason, ensureImage } from '../support/docker.js'
import { ROOT, tempDir } from '../support/sandbox.js'

t.setTimeout(10 * 60_000)

t.test('the facts the package repeats are the server’s', async (t) => {
  t.equal(ANIMAL_STORE_PORT, server.DEFAULT_PORT)
  t.equal(IN_MEMORY, server.IN_MEMORY)
  t.equal(DEFAULT_API_KEY, server.DEFAULT_API_KEY)
  t.equal(DEFAULT_ADMIN_TOKEN, server.DEFAULT_ADMIN_TOKEN)
  const version = async (file: string): Promise<string> =>
    (JSON.parse(await readFile(join(ROOT, file), 'utf8')) as { version: string }).version
  t.equal(await version('modules/node/package.json'), await version('package.json'), 'one version for both packages')
  t.equal(DEFAULT_IMAGE, `animal-store-sandbox:${await version('package.json')}`, 'the image tag of that version')
  const caOut = /^\s*TLS_CA_OUT=(\S+)/m.exec(await readFile(join(ROOT, 'Dockerfile'), 'utf8'))?.[1]
  t.equal(TLS_CA_FILE, caOut, 'the file the image writes the CA of TLS=auto to')
})

t.test('PORT and HOST are the module’s', async (t) => {
  t.throws(() => new AnimalStoreContainer(IMAGE).withEnvironment({ PORT: '8080' }), /PORT is the module's/)
  t.throws(() => new AnimalStoreContainer(IMAGE).withEnvironment({ HOST: '127.0.0.1' }), /HOST is the module's/)
})

t.test('withFixtures checks the file on the host when it is set, naming it', async (t) => {
  const dir = await tempDir(t)
  const missing = join(dir, 'missing.json')
  t.throws(() => new AnimalStoreContainer(IMAGE).withFixtures(missing), {
    message: `AnimalStoreContainer: withFixtures(): cannot read ${missing}: it does not exist`,
  })
  t.throws(() => new AnimalStoreContainer(IMAGE).withFixtures(dir), {
    message: new RegExp(`cannot read ${dir}: it is not a file`),
  })
})

const skip = (await dockerSkipReason(t)) ?? false
if (skip) t.comment(`skipping the container tests: ${skip}`)

/** The label of this run's containers, and what the engine still holds of them. */
const RUN_LABEL = { 'animal-store-sandbox.test': randomUUID() }
const leftovers = (): Promise<string> =>
  docker('ps', '-aq', '--filter', `label=animal-store-sandbox.test=${RUN_LABEL['animal-store-sandbox.test']}`)
// What a failing test leaves is removed all the same.
t.teardown(async () => {
  const ids = (await leftovers().catch(() => '')).split('\n').filter(Boolean)
  if (ids.length > 0) await docker('rm', '-f', '-v', ...ids)
})
const labelled = (image = IMAGE): AnimalStoreContainer => new AnimalStoreContainer(image).withLabels(RUN_LABEL)

t.test('getApiKey() and getAdminToken() answer what withEnvironment configured', { skip }, async (t) => {
  await ensureImage()
  const sandbox = await labelled().withInMemory().withEnvironment({ API_KEYS: ' k1 ,k2', ADMIN_TOKEN: 'adm-1' }).start()
  t.teardown(() => sandbox.stop({ remove: true, removeVolumes: true }))
  t.equal(sandbox.getApiKey(), 'k1', 'the first key, trimmed as the sandbox trims it')
  t.equal(sandbox.getAdminToken(), 'adm-1')
  const pets = await fetch(`${sandbox.getBaseUrl()}/pets`, {
    headers: { authorization: `Bearer ${sandbox.getApiKey()}` },
  })
  t.equal(pets.status, 200, 'the sandbox accepts the key getApiKey() gives')
  t.match((await sandbox.controlClient().api.GET('/clock')).data, { real: true }, 'and the token getAdminToken() gives')
  t.match(sandbox.getOrigin(), /^http:\/\//, 'plain HTTP without withTls()')
  t.throws(() => sandbox.getTlsCa(), /getTlsCa\(\): the sandbox serves plain HTTP; withTls\(\) makes a CA/, 'and no CA')
})

/** One GET over node:https: its status and body. */
function getOverHttps(url: string, options: RequestOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpsRequest(url, { ...options, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    sent.once('error', reject)
    sent.end()
  })
}

t.test('withTls(): HTTPS and HTTP/2 with verification on, trusting the CA getTlsCa() gives', { skip }, async (t) => {
  await ensureImage()
  // The wait for /healthz and the control client speak HTTPS too: start() returns only once it answered.
  const sandbox = await labelled().withInMemory().withTls().start()
  t.teardown(() => sandbox.stop({ remove: true, removeVolumes: true }))
  const ca = sandbox.getTlsCa()
  t.ok(new X509Certificate(ca).ca, 'the PEM of a CA certificate')
  t.match(sandbox.getBaseUrl(), /^https:\/\/[^/]+\/v1$/, 'an https base URL')
  const headers = { authorization: `Bearer ${sandbox.getApiKey()}` }

  t.test('HTTPS/1.1', async (t) => {
    await t.rejects(
      getOverHttps(`${sandbox.getBaseUrl()}/pets`, { headers }),
      { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
      'without the CA, the system’s trust refuses the certificate',
    )
    const pets = await getOverHttps(`${sandbox.getBaseUrl()}/pets`, { headers, ca })
    t.equal(pets.status, 200, 'trusting the CA, the request passes')
    t.ok(Array.isArray(JSON.parse(pets.body)), 'with the pets')
    t.equal(
      (await sandbox.controlClient().api.GET('/tls/ca', { parseAs: 'text' })).data,
      ca,
      'the control client trusts it, and the control API gives the same PEM',
    )
  })

  t.test('HTTP/2 through node:http2', async (t) => {
    const session = http2Connect(sandbox.getOrigin(), { ca })
    t.teardown(() => session.close())
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      session.once('error', reject)
      const stream = session.request({ ':path': '/v1/pets', ...headers })
      let status = 0
      let body = ''
      stream.setEncoding('utf8')
      stream.once('response', (answered) => (status = Number(answered[':status'])))
      stream.on('data', (chunk: string) => (body += chunk))
      stream.once('end', () => resolve({ status, body }))
      stream.once('error', reject)
    })
    t.equal(session.alpnProtocol, 'h2', 'the handshake chose h2')
    t.equal(answer.status, 200, 'a stream answered 200')
    t.ok(Array.isArray(JSON.parse(answer.body)), 'with the pets')
  })

  t.test('a restart: the sandbox makes a new CA, which getTlsCa() and the control client trust', async (t) => {
    await sandbox.restart()
    const pets = `${sandbox.getBaseUrl()}/pets`
    t.not(sandbox.getTlsCa(), ca, 'another CA')
    await t.rejects(
      getOverHttps(pets, { headers, ca }),
      // The leaf names its CA's key (Authority Key Identifier): the old CA is not even its issuer.
      { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
      'the old one opens nothing',
    )
    t.equal((await getOverHttps(pets, { headers, ca: sandbox.getTlsCa() })).status, 200, 'the new one does')
    t.match((await sandbox.controlClient().api.GET('/clock')).data, { real: true }, 'and the control client trusts it')
  })
})

t.test(
  'without withApiKey() and withAdminToken(), each start has a random key and token of its own',
  { skip },
  async (t) => {
    await ensureImage()
    const container = labelled().withInMemory()
    const [first, second] = [await container.start(), await container.start()]
    t.teardown(() => Promise.all([first, second].map((started) => started.stop({ remove: true, removeVolumes: true }))))
    const pets = (key: string): Promise<number> =>
      fetch(`${first.getBaseUrl()}/pets`, { headers: { authorization: `Bearer ${key}` } }).then((res) => res.status)
    t.not(first.getApiKey(), second.getApiKey(), 'another key at each start')
    t.equal(await pets(first.getApiKey()), 200, 'the API accepts it')
    t.equal(await pets(DEFAULT_API_KEY), 401, 'and not the default key')
    t.not(first.getAdminToken(), second.getAdminToken(), 'another token at each start')
    t.match((await first.controlClient().api.GET('/clock')).data, { real: true }, 'the control client uses it')
    const byDefault = await fetch(`${first.getOrigin()}/__admin/clock`, {
      headers: { authorization: `Bearer ${DEFAULT_ADMIN_TOKEN}` },
    })
    t.equal(byDefault.status, 401, 'and the default token opens nothing')
  },
)

t.test('a missing image: the error names it and says how to build or load it', { skip }, async (t) => {
  const image = `animal-store-sandbox:missing-${randomUUID().slice(0, 8)}`
  const started = performance.now()
  const error = await labelled(image)
    .start()
    .then(
      () => undefined,
      (error: unknown) => error as Error,
    )
  const took = performance.now() - started
  t.ok(error, 'start() rejects')
  // One refused pull, not a pull retried until a timeout: the same bound as the other modules'.
  t.ok(took < 5_000, `at once (${Math.round(took)} ms)`)
  t.match(error?.message, image, 'naming the image')
  t.match(error?.message, /`npm run image`/, 'how to build it')
  t.match(error?.message, /`docker load -i <file>`/, 'how to load it')
  t.equal(await leftovers(), '', 'no container was made')
})

t.test('a start that fails removes the container it made, with its anonymous volumes', { skip }, async (t) => {
  await ensureImage()
  // An anonymous volume on /data (the image declares none), and the volumes each container got.
  const volumes = new Map<string, string[]>()
  class WithVolume extends AnimalStoreContainer {
    constructor() {
      super(IMAGE)
      this.createOpts.Volumes = { '/data': {} }
      this.withLabels(RUN_LABEL)
    }
    protected override async containerCreated(id: string): Promise<void> {
      volumes.set(
        id,
        (await docker('inspect', '--format', '{{range .Mounts}}{{.Name}} {{end}}', id)).split(' ').filter(Boolean),
      )
    }
  }
  const dir = await tempDir(t)
  const refused = join(dir, 'refused.json')
  await writeFile(refused, JSON.stringify([{ id: 1, name: 'Bad', categoryId: 'one' }]))
  // The sandbox's rules on each setting are test/start/cli.test.ts's: refused fixtures stand for all.
  const cases: Array<[string, () => AnimalStoreContainer, RegExp]> = [
    ['fixtures the sandbox refuses', () => new WithVolume().withFixtures(refused), /is refused: .*categoryId/],
    // A file copied over the image's working folder: the container is made, and then the engine
    // cannot start it (before any wait, where testcontainers removes nothing).
    [
      'a container the engine cannot start',
      () => new WithVolume().withCopyContentToContainer([{ content: 'x', target: '/app' }]),
      /Cannot mkdir: \/app is not a directory/,
    ],
  ]
  for (const [what, container, message] of cases) {
    volumes.clear()
    await t.rejects(container().start(), message, `${what}: start() rejects`)
    t.equal(await leftovers(), '', `${what}: no container is left`)
    const made = [...volumes.values()].flat()
    t.equal(made.length, 1, `${what}: the container had its volume`)
    for (const volume of made)
      await t.rejects(docker('volume', 'inspect', volume), `${what}: its volume ${volume.slice(0, 12)} is gone`)
  }

  // The fixtures file removed after withFixtures(): start() fails on reading it, before any container.
  const gone = join(dir, 'gone', 'pets.json')
  await mkdir(join(dir, 'gone'))
  await writeFile(gone, '[]')
  const container = new WithVolume().withFixtures(gone)
  await rm(join(dir, 'gone'), { recursive: true })
  volumes.clear()
  await t.rejects(container.start(), { message: new RegExp(`cannot read ${gone}: it does not exist`) })
  t.equal(volumes.size, 0, 'no container was created')
})
