// `animal-store-sandbox pact verify`: the official Pact verifier (@pact-foundation/pact-core)
// replays the Pact a consumer's suite exported against a fresh sandbox, its provider states
// restored through the control API: 0 failures. A Pact with one wrong expectation fails, and the
// verifier's report names that interaction.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import t, { type Test } from 'tap'
import { AnimalStoreControlClient, ok } from '../../modules/node/src/client.js'
import { API_KEY, ROOT, runCliToEnd, startTestSandbox, tempDir } from '../support/sandbox.js'
import { consumerSuite, exportedPact, StoreClient } from './consumer.js'

/** Runs `pact verify` on `pact` (a file, or a Pact written to one) as a user would, bounded in time. */
async function pactVerify(t: Test, pact: unknown, args: string[]): Promise<{ code: number | null; output: string }> {
  let file = pact
  if (typeof file !== 'string') await writeFile((file = join(await tempDir(t), 'pact.json')), JSON.stringify(pact))
  const { code, stdout, stderr } = await runCliToEnd({}, ['pact', 'verify', file as string, ...args], 120_000)
  // The verifier colours its report whatever the terminal.
  return { code, output: stripVTControlCharacters(stdout + stderr) }
}

t.test('a Pact exported from a consumer suite verifies against a fresh sandbox; a wrong one fails', async (t) => {
  const { pact } = await exportedPact(t)

  // The provider: another sandbox, which never saw the consumer's calls.
  const provider = await startTestSandbox(t)
  const flags = ['--url', provider.origin, '--api-key', API_KEY]
  const verified = await pactVerify(t, pact, flags)
  t.equal(verified.code, 0, verified.output)
  t.match(verified.output, /Verifying a pact between web-shop and animal-store/)
  t.notMatch(verified.output, /FAILED/)
  for (const interaction of pact.interactions) t.match(verified.output, interaction.description)
  const namespaces = await ok(new AnimalStoreControlClient(provider.origin).api.GET('/namespaces'))
  t.notOk(
    namespaces.namespaces.some((ns) => ns.name.startsWith('pact-verify-')),
    'the verification’s namespace is deleted',
  )

  // One wrong expectation, as a hand edit would make it: a create answered 200 rather than 201.
  const wrong = structuredClone(pact)
  const create = wrong.interactions.find((i: any) => i.request.method === 'POST' && i.response.status === 201)
  create.response.status = 200
  const failed = await pactVerify(t, wrong, flags)
  t.equal(failed.code, 1, failed.output)
  t.match(failed.output, /There were 1 pact failures/)
  t.match(failed.output, `${create.description}\n    1.1) has status code 200`)
})

t.test('a namespace forked from a snapshot verifies where that snapshot exists', async (t) => {
  const sandbox = await startTestSandbox(t)
  const control = new AnimalStoreControlClient(sandbox.origin, { apiKey: API_KEY })
  const checkout = { params: { path: { name: 'checkout' } } }
  await control.namespace('fixture').api.POST('/reset', { body: { seed: 3, count: 4 } })
  await control.api.POST('/snapshots', { body: { name: 'checkout', namespace: 'fixture' } })
  await control.namespace('shop').api.POST('/reset', { body: { snapshot: 'checkout' } })
  await t.test('the consumer suite', (t) => consumerSuite(t, new StoreClient(sandbox.baseUrl, API_KEY, 'shop')))
  const pact: any = await ok(control.namespace('shop').api.GET('/pact'))
  t.same(pact.interactions[0].providerStates[0], {
    name: 'pets of snapshot "checkout"',
    params: { snapshot: 'checkout' },
  })
  const verified = await pactVerify(t, pact, ['--url', sandbox.origin, '--api-key', API_KEY])
  t.equal(verified.code, 0, verified.output)
  t.match(verified.output, /Given pets of snapshot "checkout"/)
  // The verification's fork is gone: the snapshot can be deleted.
  t.match(
    await control.api.DELETE('/snapshots/{name}', checkout).catch((error: Error) => error),
    { code: 'conflict' },
    'shop still forks it',
  )
  await control.namespace('shop').api.POST('/reset')
  t.same(await ok(control.api.DELETE('/snapshots/{name}', checkout)), { snapshot: 'checkout', deleted: true })
})

t.test('a state the sandbox does not know fails that interaction, naming the state', async (t) => {
  const provider = await startTestSandbox(t)
  const pact = {
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
  }
  const result = await pactVerify(t, pact, ['--url', provider.origin, '--api-key', API_KEY])
  t.equal(result.code, 1, result.output)
  t.match(result.output, /a list in an unknown world/)
  t.match(result.output, /Given the moon is full/)
  t.match(result.output, /provider state: unknown provider state "the moon is full"/)
})

t.test('usage errors exit 2 with one line and the usage', async (t) => {
  const noUrl = await pactVerify(t, 'pact.json', [])
  t.equal(noUrl.code, 2)
  t.match(noUrl.output, /pact verify needs --url/)
  const missing = await pactVerify(t, join(ROOT, 'no-such-pact.json'), ['--url', 'http://127.0.0.1:9'])
  t.not(missing.code, 0)
})
