// GET /__admin/pact and `animal-store-sandbox pact verify`: a consumer's suite runs against a real
// sandbox and its namespace is exported as a Pact. The Pact passes the ecosystem's Pact-versus-OpenAPI
// comparison (@pactflow/swagger-mock-validator) against spec/openapi.yaml, and fails it, naming the
// interaction, against a spec without categoryId. The official Pact verifier
// (@pact-foundation/pact-core) replays it against a fresh sandbox, its provider states restored
// through the control API: 0 failures; a Pact with one wrong expectation fails, naming that interaction.
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify, stripVTControlCharacters } from 'node:util'
import t, { type Test } from 'tap'
import { parse, stringify } from 'yaml'
import { AnimalStoreControlClient, ok } from '../../modules/node/src/client.js'
import { API_KEY, ROOT, runCliToEnd, startTestSandbox, tempDir } from '../support/sandbox.js'
import { consumerSuite, exportedPact, StoreClient } from './consumer.js'

const VALIDATOR = join(ROOT, 'node_modules/.bin/swagger-mock-validator')

/**
 * spec/openapi.yaml as the validator reads it: it takes an OpenAPI 3 path as the whole path (it
 * ignores the servers' /v1) and refuses a server variable's description, which OpenAPI 3.1 allows.
 */
async function specForValidator(dir: string, change: (spec: any) => void = () => {}): Promise<string> {
  const spec = parse(await readFile(join(ROOT, 'spec/openapi.yaml'), 'utf8'))
  delete spec.servers
  spec.paths = Object.fromEntries(Object.entries(spec.paths).map(([path, item]) => [`/v1${path}`, item]))
  change(spec)
  const file = join(dir, 'openapi.yaml')
  await writeFile(file, stringify(spec))
  return file
}

async function validate(spec: string, pact: string): Promise<{ code: number; output: string }> {
  const result = await promisify(execFile)(VALIDATOR, [spec, pact], { cwd: ROOT }).catch(
    (error: { code: number; stdout: string; stderr: string }) => error,
  )
  return { code: 'code' in result ? result.code : 0, output: result.stdout + result.stderr }
}

/** Runs `pact verify` on `pact` (a file, or a Pact written to one) as a user would, bounded in time. */
async function pactVerify(t: Test, pact: unknown, args: string[]): Promise<{ code: number | null; output: string }> {
  let file = pact
  if (typeof file !== 'string') await writeFile((file = join(await tempDir(t), 'pact.json')), JSON.stringify(pact))
  const { code, stdout, stderr } = await runCliToEnd({}, ['pact', 'verify', file as string, ...args], 120_000)
  // The verifier colours its report whatever the terminal.
  return { code, output: stripVTControlCharacters(stdout + stderr) }
}

/** The Pact of the consumer suite, exported by the first test that reads it. */
let exported: Promise<any> | undefined
const consumerPact = (t: Test): Promise<any> => (exported ??= exportedPact(t))

t.test('a namespace exports one interaction per shape, with matchers from the spec and its data state', async (t) => {
  const pact = await consumerPact(t)
  t.same(pact.consumer, { name: 'web-shop' })
  t.same(pact.provider, { name: 'animal-store' })
  t.equal(pact.metadata.pactSpecification.version, '4.0')
  t.match(pact.metadata['animal-store-sandbox'], { namespace: 'web-shop', calls: 7, dropped: 0, excluded: 0 })
  const descriptions = pact.interactions.map((i: any) => i.description)
  // Two creates and two reads of the pets made are one interaction each: same shape.
  t.same(descriptions, [
    'List animals: GET /v1/pets?status=available&limit=5 answers 200',
    'Add an animal: POST /v1/pets {categoryId, name, status} answers 201',
    'Get an animal: GET /v1/pets/21 answers 200',
    'Add an animal: POST /v1/pets {name} answers 400 invalid_body',
    'Get an animal: GET /v1/pets/987654321 answers 404 not_found',
  ])
  const [list, create, read, invalid, missing] = pact.interactions
  for (const interaction of pact.interactions) {
    t.equal(interaction.type, 'Synchronous/HTTP')
    t.same(interaction.providerStates[0], { name: 'pets from seed 7 (20 pets)', params: { seed: 7, count: 20 } })
    // The journal's redaction carries over: the verifier puts a real key in its place.
    t.same(interaction.request.headers.Authorization, ['Bearer [REDACTED]'])
    t.notMatch(JSON.stringify(interaction), API_KEY, 'no key anywhere')
  }
  t.same(read.providerStates[1], { name: 'a pet with id 21', params: { id: 21 } }, 'a pet the consumer made and read')
  t.same(list.request.query, { status: ['available'], limit: ['5'] })
  const rules = list.response.matchingRules.body
  t.same(rules['$'].matchers, [{ match: 'type', min: 0 }])
  t.same(rules['$[*].id'].matchers, [{ match: 'integer' }])
  t.same(rules['$[*].name'].matchers, [{ match: 'type' }])
  t.same(rules['$[*].status'].matchers, [{ match: 'regex', regex: '^(available|pending|sold)$' }])
  t.same(create.request.body.content, { name: 'Rex', categoryId: 2, status: 'pending' })
  t.match(create.response, { status: 201, body: { content: { name: 'Rex', categoryId: 2, status: 'pending' } } })
  t.same(create.response.matchingRules.header.Location.matchers, [{ match: 'regex', regex: '^/v1/pets/\\d+$' }])
  for (const error of [invalid, missing]) {
    t.same(Object.keys(error.response.body.content), ['code', 'message', 'status'], 'the Error body')
    t.same(error.response.matchingRules.body['$.code'].matchers, [{ match: 'type' }])
    t.same(error.response.matchingRules.body['$.status'].matchers, [{ match: 'integer' }])
  }
  t.equal(missing.response.body.content.code, 'not_found')
})

t.test('calls the journal dropped are counted, and a warning says so', async (t) => {
  const sandbox = await startTestSandbox(t, { JOURNAL_SIZE: '2' })
  const control = new AnimalStoreControlClient(sandbox.origin, { apiKey: API_KEY })
  const client = new StoreClient(sandbox.baseUrl, API_KEY, 'small')
  for (let i = 0; i < 5; i++) await client.get(1)
  const pact: any = await ok(control.namespace('small').api.GET('/pact'))
  t.match(pact.metadata['animal-store-sandbox'], { calls: 2, dropped: 3, warning: /dropped its 3 oldest calls/ })
  t.equal(pact.consumer.name, 'small', 'the consumer is the namespace by default')
  t.equal(pact.provider.name, 'Animal Store API', "the provider is the spec's title by default")
})

t.test('answers shaped by a fault or Prefer are not the provider’s: left out and counted', async (t) => {
  const sandbox = await startTestSandbox(t)
  const control = new AnimalStoreControlClient(sandbox.origin, { apiKey: API_KEY })
  const headers = { authorization: `Bearer ${API_KEY}`, 'x-sandbox-namespace': 'faulty' }
  await fetch(`${sandbox.baseUrl}/pets/1`, { headers })
  await fetch(`${sandbox.baseUrl}/pets/1`, { headers: { ...headers, prefer: 'code=404' } })
  const pact: any = await ok(control.namespace('faulty').api.GET('/pact'))
  t.equal(pact.interactions.length, 1)
  t.equal(pact.interactions[0].response.status, 200)
  t.match(pact.metadata['animal-store-sandbox'], { calls: 2, excluded: 1 })
  t.same(pact.interactions[0].providerStates[0], { name: 'the initial data', params: {} })
})

t.test('the exported Pact agrees with spec/openapi.yaml, and not with a spec without categoryId', async (t) => {
  const pact = await consumerPact(t)
  const dir = await tempDir(t)
  const file = join(dir, 'pact.json')
  await writeFile(file, JSON.stringify(pact))

  const agreed = await validate(await specForValidator(dir), file)
  t.equal(agreed.code, 0, agreed.output)
  t.match(agreed.output, /0 error\(s\)/)

  const withoutCategory = await specForValidator(dir, (spec) => {
    const newPet = spec.components.schemas.NewPet
    delete newPet.properties.categoryId
    newPet.required = newPet.required.filter((name: string) => name !== 'categoryId')
    delete newPet.example.categoryId
    delete spec.components.schemas.Pet.example.categoryId
  })
  const refused = await validate(withoutCategory, file)
  t.not(refused.code, 0)
  t.match(refused.output, /response\.body\.incompatible/)
  t.match(
    refused.output,
    /interactionDescription: 'Add an animal: POST \/v1\/pets \{categoryId, name, status\} answers 201'/,
  )
})

t.test('a Pact exported from a consumer suite verifies against a fresh sandbox; a wrong one fails', async (t) => {
  const pact = await consumerPact(t)
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
