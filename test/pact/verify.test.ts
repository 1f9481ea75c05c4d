// `animal-store-sandbox pact verify`: the official Pact verifier (@pact-foundation/pact-core)
// replays the Pact a consumer's suite exported against a fresh sandbox, its provider states
// restored through the control API: 0 failures. A Pact with one wrong expectation fails, and the
// verifier's report names that interaction.
import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import t from 'tap'
import { AnimalStoreControlClient } from '../../modules/node/src/client.js'
import { API_KEY, ROOT, startTestSandbox, tempDir } from '../support/sandbox.js'
import { consumerSuite, StoreClient } from './consumer.js'

/** Runs `pact verify` as a user would, bounded in time; resolves with its exit code and output. */
function pactVerify(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'pact', 'verify', ...args], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.once('close', (code) => {
      clearTimeout(timer)
      // The verifier colours its report whatever the terminal.
      resolve({ code, output: stripVTControlCharacters(output) })
    })
  })
}

t.test('a Pact exported from a consumer suite verifies against a fresh sandbox; a wrong one fails', async (t) => {
  const consumerSide = await startTestSandbox(t)
  const control = new AnimalStoreControlClient(consumerSide.origin, { apiKey: API_KEY })
  await control.namespace('web-shop').reset({ seed: 7, count: 20 })
  await t.test('the consumer suite', (t) =>
    consumerSuite(t, new StoreClient(consumerSide.baseUrl, API_KEY, 'web-shop')),
  )
  const pact: any = await control.namespace('web-shop').exportPact({ consumer: 'web-shop', provider: 'animal-store' })
  const dir = await tempDir(t)
  const file = join(dir, 'web-shop-animal-store.json')
  await writeFile(file, JSON.stringify(pact))

  // The provider: another sandbox, which never saw the consumer's calls.
  const provider = await startTestSandbox(t)
  const flags = ['--url', provider.origin, '--api-key', API_KEY]
  const verified = await pactVerify([file, ...flags])
  t.equal(verified.code, 0, verified.output)
  t.match(verified.output, /Verifying a pact between web-shop and animal-store/)
  t.notMatch(verified.output, /FAILED/)
  for (const interaction of pact.interactions) t.match(verified.output, interaction.description)
  const namespaces = await new AnimalStoreControlClient(provider.origin).listNamespaces()
  t.notOk(
    namespaces.namespaces.some((ns) => ns.name.startsWith('pact-verify-')),
    'the verification’s namespace is deleted',
  )

  // One wrong expectation, as a hand edit would make it: a create answered 200 rather than 201.
  const wrong = structuredClone(pact)
  const create = wrong.interactions.find((i: any) => i.request.method === 'POST' && i.response.status === 201)
  create.response.status = 200
  const wrongFile = join(dir, 'wrong.json')
  await writeFile(wrongFile, JSON.stringify(wrong))
  const failed = await pactVerify([wrongFile, ...flags])
  t.equal(failed.code, 1, failed.output)
  t.match(failed.output, /There were 1 pact failures/)
  t.match(failed.output, `${create.description}\n    1.1) has status code 200`)
})

t.test('a namespace forked from a snapshot verifies where that snapshot exists', async (t) => {
  const sandbox = await startTestSandbox(t)
  const control = new AnimalStoreControlClient(sandbox.origin, { apiKey: API_KEY })
  await control.namespace('fixture').reset({ seed: 3, count: 4 })
  await control.namespace('fixture').createSnapshot('checkout')
  await control.namespace('shop').reset({ snapshot: 'checkout' })
  await t.test('the consumer suite', (t) => consumerSuite(t, new StoreClient(sandbox.baseUrl, API_KEY, 'shop')))
  const pact: any = await control.namespace('shop').exportPact()
  t.same(pact.interactions[0].providerStates[0], {
    name: 'pets of snapshot "checkout"',
    params: { snapshot: 'checkout' },
  })
  const dir = await tempDir(t)
  const file = join(dir, 'shop.json')
  await writeFile(file, JSON.stringify(pact))
  const verified = await pactVerify([file, '--url', sandbox.origin, '--api-key', API_KEY])
  t.equal(verified.code, 0, verified.output)
  t.match(verified.output, /Given pets of snapshot "checkout"/)
  // The verification's fork is gone: the snapshot can be deleted.
  t.match(
    await control.deleteSnapshot('checkout').catch((error: Error) => error),
    { code: 'conflict' },
    'shop still forks it',
  )
  await control.namespace('shop').reset()
  t.same(await control.deleteSnapshot('checkout'), { snapshot: 'checkout', deleted: true })
})

t.test('a state the sandbox does not know fails that interaction, naming the state', async (t) => {
  const provider = await startTestSandbox(t)
  const dir = await tempDir(t)
  const file = join(dir, 'unknown-state.json')
  await writeFile(
    file,
    JSON.stringify({
      consumer: { name: 'c' },
      provider: { name: 'p' },
      interactions: [
        {
          type: 'Synchronous/HTTP',
          description: 'a list in an unknown world',
          providerStates: [{ name: 'the moon is full' }],
          request: { method: 'GET', path: '/v1/pets', headers: { Authorization: ['Bearer [REDACTED]'] } },
          response: { status: 200 },
        },
      ],
      metadata: { pactSpecification: { version: '4.0' } },
    }),
  )
  const result = await pactVerify([file, '--url', provider.origin, '--api-key', API_KEY])
  t.equal(result.code, 1, result.output)
  t.match(result.output, /a list in an unknown world/)
  t.match(result.output, /Given the moon is full/)
  t.match(result.output, /provider state: unknown provider state "the moon is full"/)
})

t.test('usage errors exit 2 with one line and the usage', async (t) => {
  const noUrl = await pactVerify(['pact.json'])
  t.equal(noUrl.code, 2)
  t.match(noUrl.output, /pact verify needs --url/)
  const missing = await pactVerify([join(ROOT, 'no-such-pact.json'), '--url', 'http://127.0.0.1:9'])
  t.not(missing.code, 0)
})
