// GET /__admin/pact: a consumer's suite runs against a real sandbox and its namespace is exported
// as a Pact; the Pact passes the ecosystem's Pact-versus-OpenAPI comparison
// (@pactflow/swagger-mock-validator) against spec/openapi.yaml, and fails it, naming the
// interaction, against a spec without categoryId.
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { parse, stringify } from 'yaml'
import { AnimalStoreControlClient, ok } from '../../modules/node/src/client.js'
import { API_KEY, ROOT, startTestSandbox, tempDir } from '../support/sandbox.js'
import { exportedPact, StoreClient } from './consumer.js'

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

t.test('a namespace exports one interaction per shape, with matchers from the spec and its data state', async (t) => {
  const { pact } = await exportedPact(t)
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
  const { pact } = await exportedPact(t)
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
