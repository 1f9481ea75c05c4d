// The four modules against an engine reached over TCP, as a remote engine or Docker in Docker is:
// DOCKER_HOST=tcp://127.0.0.1:<port>, a proxy here to this machine's engine, with no
// TESTCONTAINERS_HOST_OVERRIDE and the reaper off, as the modules' READMEs say for a machine
// without a registry. Each language starts a plain sandbox and one with TLS through its own tests
// (the README's example or snippets among them), each client verifying the certificate for the host
// its Testcontainers dials. On a machine with a /.dockerenv, Python's Testcontainers dials the
// container's gateway there (Java's and Go's take the engine's host).
import { existsSync } from 'node:fs'
import { get } from 'node:https'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { AnimalStoreContainer } from '../../modules/node/src/index.js'
import { IMAGE, dockerSkipReason, ensureImage } from '../support/docker.js'
import { ROOT } from '../support/sandbox.js'
import { mustRun, skipWithout } from '../support/system-programs.js'

t.setTimeout(30 * 60_000)
// The proxy's port is on 127.0.0.1, where the engine must publish the containers' ports too.
const remote = /^tcp:\/\/(?!127\.0\.0\.1|localhost)/.test(process.env['DOCKER_HOST'] ?? '')
const skip =
  (await dockerSkipReason(t)) ??
  (remote && `DOCKER_HOST=${process.env['DOCKER_HOST']}: the engine publishes its ports on another machine`)

/** The engine the docker client reaches, as `net.connect` takes it: a unix socket, or a TCP host and port. */
function engineAddress(): { path: string } | { host: string; port: number } {
  const given = process.env['DOCKER_HOST'] ?? 'unix:///var/run/docker.sock'
  const url = new URL(given)
  if (url.protocol === 'unix:') return { path: url.pathname }
  if (url.protocol === 'tcp:') return { host: url.hostname, port: Number(url.port) }
  throw new Error(`DOCKER_HOST=${given}: this test proxies a unix or tcp engine only`)
}

/** A TCP port on 127.0.0.1 that relays every connection, byte for byte, to the engine; counts them. */
async function engineOverTcp(t: Test): Promise<{ url: string; connections: () => number }> {
  const engine = engineAddress()
  let connections = 0
  const open = new Set<Socket>()
  const server: Server = createServer((client) => {
    connections++
    const upstream = connect(engine)
    for (const socket of [client, upstream]) {
      open.add(socket)
      socket.once('close', () => open.delete(socket))
      // One side gone: the other goes too (the engine's streams end with their connection).
      socket.once('error', () => (client.destroy(), upstream.destroy()))
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of open) socket.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const { port } = server.address() as { port: number }
  return { url: `tcp://127.0.0.1:${port}`, connections: () => connections }
}

/** GET over HTTPS trusting `ca` alone: the status and the body. */
function getOverHttps(
  url: string,
  ca: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { ca, headers }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body }))
      response.once('error', reject)
    }).once('error', reject)
  })
}

t.test('each module over an engine reached by TCP', { skip }, async (t) => {
  await ensureImage()
  const engine = await engineOverTcp(t)
  // This process's Testcontainers reads them at its first call, below; the other languages get them below too.
  process.env['DOCKER_HOST'] = engine.url
  delete process.env['TESTCONTAINERS_HOST_OVERRIDE']
  const env = {
    DOCKER_HOST: engine.url,
    TESTCONTAINERS_HOST_OVERRIDE: undefined,
    ANIMAL_STORE_IMAGE: IMAGE,
    REQUIRE_DOCKER: '1',
    NO_COLOR: '1',
  }
  /** Runs a language's tests through the proxy; they must pass, and must have used it. */
  const runThrough = async (t: Test, command: string, args: string[], cwd: string, ran: RegExp) => {
    const before = engine.connections()
    t.comment(`$ ${command} ${args.join(' ')}`)
    const { output } = await mustRun(command, args, cwd, env, 15 * 60_000)
    t.match(output, ran, 'the tests ran and passed')
    t.ok(engine.connections() > before, `${command} reached the engine through ${engine.url}`)
  }

  t.test('Node: a plain sandbox, and one withTls()', async (t) => {
    const before = engine.connections()
    const plain = await new AnimalStoreContainer(IMAGE).withInMemory().start()
    t.teardown(() => plain.stop({ remove: true, removeVolumes: true }))
    const pets = await fetch(`${plain.getBaseUrl()}/pets`, {
      headers: { authorization: `Bearer ${plain.getApiKey()}` },
    })
    t.equal(pets.status, 200, `listPets at ${plain.getBaseUrl()}`)
    t.ok(engine.connections() > before, `testcontainers reached the engine through ${engine.url}`)

    // The wait for /healthz verified the certificate for the host dialed: start() resolves only if it does.
    const tls = await new AnimalStoreContainer(IMAGE).withInMemory().withTls().start()
    t.teardown(() => tls.stop({ remove: true, removeVolumes: true }))
    const answer = await getOverHttps(`${tls.getBaseUrl()}/pets`, tls.getTlsCa(), {
      authorization: `Bearer ${tls.getApiKey()}`,
    })
    t.equal(answer.status, 200, `listPets at ${tls.getBaseUrl()}, trusting the sandbox's CA`)
    t.match(
      (await tls.controlClient().api.GET('/clock')).data,
      { real: true },
      'the control client verifies it there too',
    )
  })

  t.test('Go: ExampleRun and the TLS tests', { skip: skipWithout(t, 'go', { source: 'go.dev' }) }, async (t) => {
    const tests = '^(ExampleRun|TestRun_tls|TestRun_tlsCertificateNamesTheHostItDials)$'
    await runThrough(
      t,
      'go',
      ['test', './animalstore', '-count=1', '-run', tests],
      join(ROOT, 'modules/go'),
      /^ok\s+\S+\s+[\d.]+s$/m,
    )
  })

  t.test('Java: the container and TLS test classes', { skip: skipWithout(t, 'mvn', 'maven') }, async (t) => {
    const classes = 'AnimalStoreContainerTest,AnimalStoreContainerTlsTest'
    await runThrough(
      t,
      'mvn',
      ['-B', '-q', `-Dtest=${classes}`, 'test'],
      join(ROOT, 'modules/java'),
      /Tests run: [1-9]\d*, Failures: 0, Errors: 0, Skipped: 0/,
    )
  })

  t.test('Python: a plain start and the TLS tests', { skip: skipWithout(t, 'python3', 'python3') }, async (t) => {
    // The module's own virtual environment, made as CONTRIBUTING.md says when it is missing.
    const venv = join(ROOT, 'modules/python/.venv')
    if (!existsSync(join(venv, 'bin/pytest'))) {
      await mustRun('python3', ['-m', 'venv', venv], ROOT)
      await mustRun(join(venv, 'bin/pip'), ['install', '-q', '-e', 'modules/python[test]'], ROOT)
    }
    const tests = ['modules/python/tests/test_container.py', 'modules/python/tests/test_tls.py']
    const only = 'test_start_waits_for_health_over_http or test_tls'
    await runThrough(
      t,
      join(venv, 'bin/pytest'),
      ['-q', '-p', 'no:cacheprovider', ...tests, '-k', only],
      ROOT,
      /^\d+ passed, \d+ deselected in /m,
    )
  })
})
