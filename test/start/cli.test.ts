// The command as users run it: settings, banner, logs and signals. (A kill -9 under a write load:
// test/store/faults.test.ts.)
import { Agent, request } from 'node:http'
import { writeFile } from 'node:fs/promises'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { SERVER_LIMITS } from '../../src/sandbox.js'
import { readStoredPets, runCliToEnd, spawnCli, tempDir, waitFor } from '../support/sandbox.js'

t.test('--help prints every setting and exits 0', async (t) => {
  const { code, stdout } = await runCliToEnd({}, ['--help'])
  t.equal(code, 0)
  for (const name of 'PORT HOST API_KEYS DATA_FILE SEED SEED_COUNT FIXTURES LOG_LEVEL --in-memory'.split(' '))
    t.match(stdout, name)
})

t.test('a start that fails prints one line naming the setting or the file, no stack', async (t) => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => taken.close(resolve)))
  const { port } = taken.address() as AddressInfo
  const dir = await tempDir(t)
  await writeFile(join(dir, 'a-file'), '')
  const unwritable = join(dir, 'a-file', 'db.json')
  // One row per way a start fails; each reader's other settings (another whole number, another
  // list of names) are checked in process, beside the settings they read (test/namespaces, test/journal, test/fidelity).
  const cases: Array<{ env?: Record<string, string>; args?: string[]; names: RegExp }> = [
    {
      env: { PORT: String(port) },
      names:
        /^animal-store-sandbox: PORT \d+ on HOST 127\.0\.0\.1 is already in use: set PORT to a free port \(0 for any\)\n$/,
    },
    {
      env: { DATA_FILE: unwritable },
      names: /^animal-store-sandbox: Data file \S+\/a-file\/db\.json cannot be (read|written): .+\n$/,
    },
    { env: { PORT: 'abc' }, names: /PORT must be a whole number from 0 to 65535, got "abc"/ },
    { args: ['--port', '-1'], names: /--port.*--port=-XYZ.*--help/ },
    { env: { API_KEYS: ' , ' }, names: /API_KEYS is set but holds no key/ },
    { env: { API_KEYS: 'a,,b' }, names: /API_KEYS: key number 2 is empty/ },
    { env: { API_KEYS: 'sekrit-value,bad key' }, names: /API_KEYS: key number 2 has characters/ },
    { env: { SEED: '1', FIXTURES: 'fixtures/pets.json' }, names: /FIXTURES and SEED both choose the initial data/ },
    { env: { FIXTURES: 'no/such/file.json' }, names: /Fixtures file .*file\.json does not exist/ },
    // The flag is --api-key; the variable is API_KEYS: the singular would be ignored.
    { env: { API_KEY: 'my-key' }, names: /API_KEY is not a setting: the API keys are API_KEYS \(comma-separated\)/ },
    { env: { DATABASE_URL: 'mysql://db/sandbox' }, names: /DATABASE_URL must be a PostgreSQL URL/ },
    // Nothing listens on port 1: the start stops, and the URL's password is never shown.
    {
      env: { DATABASE_URL: 'postgres://sandbox:sekrit-value@127.0.0.1:1/sandbox' },
      names: /DATABASE_URL: cannot use the database sandbox at 127\.0\.0\.1:1: .*ECONNREFUSED/,
    },
    // A folder this process may not write (as root too: /sys refuses everyone).
    {
      env: { DATA_FILE: '/sys/animal-store-sandbox-test/db.json' },
      names: /runs as user id \d+ .*DATA_FILE=:memory:/,
    },
  ]
  for (const c of cases) {
    const { code, stderr } = await runCliToEnd(c.env ?? {}, c.args ?? [])
    t.not(code, 0, `${JSON.stringify(c.env ?? c.args)} → non-zero exit`)
    t.match(stderr, c.names)
    t.equal(stderr.trimEnd().split('\n').length, 1, 'one line')
    t.notMatch(stderr, 'sekrit-value', 'a message about a key never shows a key')
  }
  const debug = await runCliToEnd({ DATA_FILE: unwritable, LOG_LEVEL: 'debug' })
  t.match(debug.stderr, /\n\s+at /, 'the stack at the debug log level')
})

t.test('the banner shows a reachable URL, the data source and a curl line; LOG_LEVEL sets the logs', async (t) => {
  const dir = await tempDir(t)
  // On every interface (as in a container) the banner shows no address a user cannot reach.
  const withDefault = await spawnCli(t, { HOST: '0.0.0.0', DATA_FILE: join(dir, 'a.json'), API_KEYS: '' })
  t.notMatch(withDefault.stderr, /0\.0\.0\.0/, 'the inside address is not shown')
  t.match(
    withDefault.stderr,
    /port \d+ of every interface \(from outside a container, use the host port published for it\)/,
  )
  t.match(
    withDefault.stderr,
    /try: {2}curl -H "Authorization: Bearer sandbox-api-key" http:\/\/localhost:\d+\/v1\/pets/,
  )
  t.match(withDefault.stderr, /60 pets from the built-in fixtures/)
  const origin = new URL(withDefault.baseUrl).origin.replace('localhost', '127.0.0.1')
  const res = await fetch(`${origin}/v1/pets?limit=1`, { headers: { authorization: 'Bearer sandbox-api-key' } })
  t.equal(res.status, 200, 'the printed curl line works')
  await res.body?.cancel()
  // Reachable from other machines and no ADMIN_TOKEN: no control API, even from loopback.
  t.match(withDefault.stderr, /test control: off \(HOST lets other machines connect and no ADMIN_TOKEN is set: set one/)
  const control = await fetch(`${origin}/__admin/clock`, { headers: { authorization: 'Bearer sandbox-admin-token' } })
  t.equal(control.status, 404, 'no control API')
  await control.body?.cancel()
  withDefault.child.kill('SIGTERM')
  await withDefault.exited
  t.equal(withDefault.stdout, '', 'LOG_LEVEL=silent: no log line')

  const withKey = await spawnCli(t, {
    DATA_FILE: join(dir, 'b.json'),
    API_KEYS: 'my-secret-key',
    SEED: '3',
    SEED_COUNT: '5',
    LOG_LEVEL: 'debug',
  })
  // That no key is printed or logged: test/hardening/secrets.test.ts.
  t.match(withKey.stderr, /5 pets generated from seed 3/)
  await (await fetch(`${withKey.baseUrl}/pets`, { headers: { authorization: 'Bearer my-secret-key' } })).text()
  await (await fetch(`${withKey.baseUrl}/pets`, { headers: { authorization: 'Bearer my-secret-kez' } })).text()
  withKey.child.kill('SIGTERM')
  await withKey.exited
  const lines = withKey.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  t.match(
    lines.filter((l) => l['msg'] === 'request'),
    [{ method: 'GET', path: '/v1/pets', status: 200 }, { status: 401 }],
    'request logs are JSON lines',
  )
})

t.test('a rejection no code handles is logged and counted in /healthz, and the server goes on serving', async (t) => {
  const dir = await tempDir(t)
  // Loaded before the command: on SIGUSR2, a promise rejects with no handler, as a background
  // write that forgot its own would.
  const preload = join(dir, 'reject-on-signal.mjs')
  await writeFile(preload, "process.on('SIGUSR2', () => void Promise.reject(new Error('escaped on purpose')))\n")
  const cli = await spawnCli(t, {
    DATA_FILE: join(dir, 'db.json'),
    API_KEYS: 'k',
    LOG_LEVEL: 'error',
    NODE_OPTIONS: `--import=${preload}`,
  })
  const health = async (): Promise<{ status: string; unhandledRejections: number }> =>
    (await fetch(new URL('/healthz', cli.baseUrl))).json() as Promise<{ status: string; unhandledRejections: number }>
  t.same(await health(), { status: 'ok', unhandledRejections: 0 })
  for (const expected of [1, 2]) {
    cli.child.kill('SIGUSR2')
    await waitFor(async () => (await health()).unhandledRejections === expected, {
      what: `/healthz to count ${expected} unhandled rejections`,
    })
  }
  t.equal(cli.child.exitCode, null, 'the process is still running')
  const list = await fetch(`${cli.baseUrl}/pets?limit=1`, { headers: { authorization: 'Bearer k' } })
  t.equal(list.status, 200, 'and serving')
  await list.arrayBuffer()
  t.match(cli.stdout, /escaped on purpose/, 'each is logged, with its error')
  cli.child.kill('SIGTERM')
  t.equal(await cli.exited, 0)
})

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`${signal} with an idle keep-alive connection and a create in flight: exit 0, data flushed`, async (t) => {
    const dir = await tempDir(t)
    const dataFile = join(dir, 'db.json')
    const cli = await spawnCli(t, { DATA_FILE: dataFile, API_KEYS: 'k' })
    const agent = new Agent({ keepAlive: true })
    t.teardown(() => agent.destroy())
    // An idle keep-alive connection would hold a naive close() open for the keep-alive timeout.
    await new Promise<void>((resolve) =>
      request(`${cli.baseUrl}/pets`, { agent, headers: { authorization: 'Bearer k' } }, (res) =>
        res.resume().on('end', resolve),
      ).end(),
    )
    const inFlight = fetch(`${cli.baseUrl}/pets`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: '{"name":"Last","categoryId":1}',
    })
    await new Promise((resolve) => setTimeout(resolve, 5))
    const started = Date.now()
    cli.child.kill(signal)
    const code = await cli.exited
    const took = Date.now() - started
    t.equal(code, 0, 'exit code 0')
    // Not a speed check: a close() that waited for the idle connection would take the whole
    // keep-alive timeout; stopping closes it at once instead.
    t.ok(
      took < SERVER_LIMITS.keepAliveTimeoutMs,
      `stopped (${took} ms) before the idle connection's keep-alive timeout`,
    )
    const answer = await inFlight.then(
      (r) => r.status,
      () => 'no answer',
    )
    const names = (await readStoredPets(dataFile)).map((p) => p.name)
    if (answer === 201) t.ok(names.includes('Last'), 'the acknowledged create is in the file')
    else t.equal(answer, 'no answer', 'a create the server never accepted is simply not answered')
  })
}
