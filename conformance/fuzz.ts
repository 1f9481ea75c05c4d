// Property-based fuzzing: requests generated from a spec's operations and schemas, then mutated;
// every answer is checked against the contract.
import fc from 'fast-check'
import { exactInteger } from '../src/http/json-numbers.js'
import type { Operation, SpecFile as ApiSpec } from '../src/contract/types.js'
import type { Contract } from './contract.js'
import { rawExchange, serialise, type RawRequest } from '../scripts/lib/raw-http.js'

export interface FuzzCase {
  readonly request: RawRequest
  /** The categoryId literal of a generated NewPet body, to check that a 201 kept it exactly. */
  readonly categoryIdLiteral?: string
}

export interface FuzzTarget {
  readonly port: number
  readonly basePath: string
  readonly apiKey: string
}

export interface FuzzStats {
  cases: number
  readonly byStatus: Map<number, number>
  /** Every pet a 201 acknowledged, as it was answered. */
  readonly created: Array<{ id: number; name: string; categoryId: number; status: string }>
}

// Numbers at and beyond the edges JSON and int64 care about, as the literal text a client sends.
const EDGE_NUMBERS = (
  '0 -0 1 -1 100 101 2147483647 2147483648 -2147483649 9007199254740991 -9007199254740991 9007199254740992 ' +
  '9007199254740993 -9007199254740993 9223372036854775807 9223372036854775808 -9223372036854775808 ' +
  '-9223372036854775809 18446744073709551616 1e400 -1e400 1e-400 1.0 1.5 1e2 1E+2 0.1e1 12.000 ' +
  '9007199254740990.6 1.0000000000000001 9007199254740991.4 4.5e15 01 +1 1. .5 NaN Infinity 0x10 1_000'
).split(' ')

const numberLiteral: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 2, arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)) },
)

/** Query and path values for a parameter, from its schema: valid ones, edges, and junk. */
function parameterValue(schema: Record<string, unknown>): fc.Arbitrary<string> {
  const enumValues = (schema['enum'] as string[] | undefined) ?? []
  const fromSchema: fc.Arbitrary<string> =
    enumValues.length > 0
      ? fc.oneof(
          fc.constantFrom(...enumValues),
          fc.constantFrom(...enumValues).map((v) => v.toUpperCase()),
          fc.constantFrom(...enumValues).map((v) => ` ${v}`),
        )
      : schema['type'] === 'integer'
        ? fc.oneof(
            fc
              .integer({
                min: (schema['minimum'] as number | undefined) ?? 0,
                max: (schema['maximum'] as number | undefined) ?? 200,
              })
              .map(String),
            numberLiteral,
          )
        : fc.string()
  return fc.oneof(
    { weight: 6, arbitrary: fromSchema },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string(),
        fc.constantFrom('', '%00', '%', '%zz', '__proto__', 'constructor', '[]', '{}', 'null'),
      ),
    },
  )
}

const authorization = (apiKey: string): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${apiKey}`) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        '',
        'Bearer ',
        `BEARER   ${apiKey}  `,
        `Bearer ${apiKey}x`,
        `Basic ${Buffer.from(`user:${apiKey}`).toString('base64')}`,
        `Bearer ${apiKey}, Bearer other`,
        `Bearer ${'a'.repeat(8_000)}`,
        'Bearer \u0001',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `Bearer ${s}`) },
  )

const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined,
      '',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'text/plain',
      'application/json;;;',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
)

/** A string field: ordinary names, odd text, or a huge one. */
function text(hugeUpTo: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '__proto__', 'constructor', '\u0000', '\ud800', '<script>', '😀'.repeat(3)),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: hugeUpTo }).map((n) => 'x'.repeat(n)) },
  )
}

const anyJson: fc.Arbitrary<string> = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null')

/** A NewPet, valid or with each field possibly mutated, written out by hand so numbers keep their literal text. */
function newPetBody(hugeUpTo: number): fc.Arbitrary<{ text: string; categoryIdLiteral: string | undefined }> {
  const field = <T>(valid: fc.Arbitrary<T>, render: (v: T) => string): fc.Arbitrary<string | undefined> =>
    fc.oneof(
      { weight: 10, arbitrary: valid.map(render) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: anyJson },
    )
  return fc
    .record({
      name: field(text(hugeUpTo), (s) => JSON.stringify(s)),
      categoryId: fc.oneof(
        { weight: 4, arbitrary: fc.nat(1_000).map((n) => ({ literal: String(n) })) },
        { weight: 4, arbitrary: numberLiteral.map((n) => ({ literal: n })) },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: anyJson.map((j) => ({ json: j })) },
      ),
      status: field(fc.constantFrom('available', 'pending', 'sold', 'Sold', 'lost', ''), (s) => JSON.stringify(s)),
      extra: fc.array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom(...'id __proto__ constructor prototype name categoryId toString hasOwnProperty'.split(' ')),
            fc.string({ maxLength: 10 }),
          ),
          fc.oneof(
            anyJson,
            numberLiteral,
            fc.integer({ min: 1, max: 50_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
          ),
        ),
        { maxLength: 2 },
      ),
    })
    .map(({ name, categoryId, status, extra }) => {
      const members: string[] = []
      if (name !== undefined) members.push(`"name":${name}`)
      if (categoryId !== undefined)
        members.push(`"categoryId":${'literal' in categoryId ? categoryId.literal : categoryId.json}`)
      if (status !== undefined) members.push(`"status":${status}`)
      for (const [key, value] of extra) members.push(`${JSON.stringify(key)}:${value}`)
      // A later duplicate "categoryId" wins in JSON.parse: the literal is only known when it is the one.
      const literal =
        categoryId && 'literal' in categoryId && !extra.some(([key]) => key === 'categoryId')
          ? categoryId.literal
          : undefined
      return { text: `{${members.join(',')}}`, categoryIdLiteral: literal }
    })
}

function body(
  hugeUpTo: number,
): fc.Arbitrary<{ text: string | Buffer; categoryIdLiteral: string | undefined } | undefined> {
  const plain = (arb: fc.Arbitrary<string | Buffer>) => arb.map((text) => ({ text, categoryIdLiteral: undefined }))
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 8, arbitrary: newPetBody(hugeUpTo) },
    { weight: 2, arbitrary: plain(anyJson) },
    { weight: 1, arbitrary: plain(fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes))) },
    { weight: 1, arbitrary: plain(fc.string({ maxLength: 100 })) },
    {
      weight: 1,
      arbitrary: plain(
        fc.oneof(
          fc.integer({ min: 1, max: 200_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
          fc.integer({ min: 1, max: 100_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
          fc.integer({ min: 1, max: 100_000 }).map((n) => '['.repeat(n)),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: plain(
        fc.constantFrom(
          '',
          'null',
          '[]',
          '"x"',
          '{}',
          '{"name":"a","categoryId":1',
          '\ufeff{"name":"a","categoryId":1}',
        ),
      ),
    },
  )
}

function specPath(spec: ApiSpec, op: Operation): fc.Arbitrary<string> {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string)
  if (names.length === 0) return fc.constant(spec.basePath + op.path)
  const values = names.map((name) =>
    parameterValue(op.parameters.find((p) => p.name === name)?.schema ?? {}).map((v) => encodeURIComponent(v)),
  )
  return fc
    .tuple(...values)
    .map(
      (filled) => spec.basePath + names.reduce((path, name, i) => path.replace(`{${name}}`, filled[i] ?? ''), op.path),
    )
}

const ODD_PATHS = [
  ...(
    '/ * /v1 /v1/ //v1//pets /v1/pets/../pets /V1/PETS /v1/pets%2F1 /healthz /healthz/ /v1/pets/1/2 /v1/pets/ ' +
    '/v1/store/orders /__proto__ /v1/pets/__proto__ /v1/pets/constructor /v1/pets/%E0%A4%A /v1/pets/1%00 ' +
    'http://127.0.0.1/v1/pets /v1/pets#x /v1/pets;a=b /docs /docs/ /docs/swagger-ui.css /docs/..%2f..%2fpackage.json ' +
    '/docs/%00 /v1/openapi.json /v1/openapi.yaml /V1/OPENAPI.JSON'
  ).split(' '),
  `/v1/${'a'.repeat(5_000)}`,
]

function query(op: Operation | undefined): fc.Arbitrary<string> {
  const known = (op?.parameters ?? []).filter((p) => p.in === 'query')
  const pair = fc.oneof(
    ...known.map((p) => fc.tuple(fc.constant(p.name), parameterValue(p.schema))),
    fc.tuple(
      fc.oneof(
        fc.constantFrom('limit', 'status', '__proto__', 'constructor', 'limit[]', ''),
        fc.string({ maxLength: 8 }),
      ),
      fc.string({ maxLength: 12 }),
    ),
  )
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .array(pair, { maxLength: 3 })
        .map((pairs) =>
          pairs.length
            ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`
            : '',
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        ...'? ?&& ?limit ?limit=1&limit=2 ?limit=% ?status=available&status=sold ?%zz=1'.split(' '),
        `?limit=${'9'.repeat(400)}`,
      ),
    },
  )
}

/**
 * Requests generated from the spec's operations, then mutated. With `ownPathsOnly`, odd and random
 * paths stay under the spec's base path (for the control API, whose faults would otherwise shape
 * the answers of the Animal Store API on purpose).
 */
export function requestArbitrary(
  spec: ApiSpec,
  apiKey: string,
  hugeUpTo = 100_000,
  ownPathsOnly = false,
): fc.Arbitrary<FuzzCase> {
  const oddPaths = ownPathsOnly
    ? ['', '/', '//', '/..', '/%00', `/${'a'.repeat(5_000)}`, '/RESET', '/requests/1', '/faults/x'].map(
        (p) => spec.basePath + p,
      )
    : ODD_PATHS
  const underBase = ownPathsOnly ? spec.basePath : ''
  const otherMethod = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(...'GET POST PUT PATCH DELETE OPTIONS HEAD TRACE get post PROPFIND SEARCH'.split(' ')),
    },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z]{1,8}$/) },
  )
  // Mostly an operation of the spec with its own method (createPet twice as often: it has a body),
  // sometimes with another method, an odd path or random segments.
  const operations = spec.operations.flatMap((op) => (op.requestBody ? [op, op] : [op]))
  const methodAndTarget = fc.oneof(
    {
      weight: 10,
      arbitrary: fc
        .constantFrom(...operations)
        .chain((op) =>
          fc
            .tuple(
              fc.oneof({ weight: 9, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: otherMethod }),
              specPath(spec, op),
              query(op),
            )
            .map(([method, path, q]) => [method, path + q] as const),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.oneof(fc.constantFrom('GET', 'POST'), otherMethod), fc.constantFrom(...oddPaths), query(undefined))
        .map(([method, path, q]) => [method, path + q] as const),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constantFrom('GET', 'POST'), otherMethod),
          fc.array(fc.oneof(fc.string({ maxLength: 10 }).map(encodeURIComponent), fc.string({ maxLength: 6 })), {
            maxLength: 4,
          }),
        )
        .map(([method, segments]) => [method, `${underBase}/${segments.join('/')}`] as const),
    },
  )
  const extraHeaders = fc.array(
    fc.oneof(
      fc.constantFrom<[string, string]>(
        ['Accept', 'application/xml'],
        ['Accept-Encoding', 'gzip'],
        ['Expect', '100-continue'],
        ['Origin', 'http://evil.example'],
        ['Access-Control-Request-Method', 'POST'],
      ),
      fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/), fc.string({ maxLength: 30 })),
    ),
    { maxLength: 2 },
  )
  return fc
    .record({ methodAndTarget, auth: authorization(apiKey), contentType, extraHeaders, body: body(hugeUpTo) })
    .map(({ methodAndTarget: [method, target], auth, contentType, extraHeaders, body }) => {
      const headers: Array<[string, string]> = []
      if (auth !== undefined) headers.push(['Authorization', auth])
      if (contentType !== undefined && body !== undefined) headers.push(['Content-Type', contentType])
      // Hop-by-hop and framing headers are the raw client's to set.
      headers.push(
        ...extraHeaders.filter(
          ([name]) =>
            !/^(content-length|transfer-encoding|connection|host|upgrade|authorization|content-type)$/i.test(name),
        ),
      )
      const request: RawRequest =
        body === undefined ? { method, target, headers } : { method, target, headers, body: body.text }
      return body?.categoryIdLiteral === undefined
        ? { request }
        : { request, categoryIdLiteral: body.categoryIdLiteral }
    })
}

/** Which operation a request is for (one trailing slash is tolerated; case is not), if any. */
function operationOf(spec: ApiSpec, method: string, target: string): Operation | undefined {
  const path = target.split(/[?#]/)[0] ?? ''
  return spec.operations.find((op) => {
    const pattern = new RegExp(`^${(spec.basePath + op.path).replace(/\{[^}]+\}/g, '[^/]+')}/?$`)
    // HEAD is served as GET without the body.
    return (op.method === method || (method === 'HEAD' && op.method === 'GET')) && pattern.test(path)
  })
}

/** Sends one case and lists every way its answer breaks the contract. */
export async function checkCase(
  contract: Contract,
  target: FuzzTarget,
  fuzzCase: FuzzCase,
  stats: FuzzStats,
): Promise<string[]> {
  const { request } = fuzzCase
  const answer = await rawExchange(target.port, request, 15_000)
  stats.cases++
  if (answer === undefined) return ['the server closed the connection without an answer']
  stats.byStatus.set(answer.status, (stats.byStatus.get(answer.status) ?? 0) + 1)
  // Node's parser reads "GET /  HTTP/1.1" as a request for "/": spaces around the target do not count.
  const requested = request.target.trim()
  const op = operationOf(contract.spec, request.method, requested)
  // Routes outside the API contract: the health check, and the explorer's pages and spec files,
  // whose 2xx bodies are HTML, JavaScript, YAML; they must still never fail.
  if (answer.status === 200 && !op && /^\/healthz\/?(?:[?#]|$)/i.test(requested)) {
    // No rejection escaped: a count above 0 is a bug the fuzzer found.
    return request.method === 'HEAD' || answer.body.toString() === '{"status":"ok","unhandledRejections":0}'
      ? []
      : [`GET /healthz answered ${answer.body.toString()}`]
  }
  const explorerPath = new RegExp(
    `^(?:/|/docs(?:/[^/?#]*)?|(?:/v1|${contract.spec.basePath})/openapi\\.(?:json|yaml))/?(?:[?#]|$)`,
    'i',
  )
  if (
    answer.status >= 200 &&
    answer.status < 300 &&
    !op &&
    /^(GET|HEAD)$/i.test(request.method) &&
    explorerPath.test(requested)
  )
    return []
  // A CORS preflight is answered 204 with no body.
  const preflight =
    request.method === 'OPTIONS' &&
    request.headers?.some(([name]) => /^access-control-request-method$/i.test(name)) &&
    request.headers.some(([name]) => /^origin$/i.test(name))
  if (answer.status === 204 && preflight) return []
  const problems = contract.check(
    op?.operationId,
    { status: answer.status, contentType: answer.headers['content-type'], body: answer.body },
    request.method === 'HEAD',
  )
  if (answer.status === 201 && op?.operationId === 'createPet' && problems.length === 0) {
    const pet = JSON.parse(answer.body.toString()) as FuzzStats['created'][number]
    stats.created.push(pet)
    if (answer.headers['location'] !== `${target.basePath}/pets/${pet.id}`)
      problems.push(`Location is ${answer.headers['location']}`)
    if (fuzzCase.categoryIdLiteral !== undefined) {
      const exact = exactInteger(fuzzCase.categoryIdLiteral)
      if (exact === undefined || exact !== BigInt(pet.categoryId)) {
        problems.push(
          `categoryId ${fuzzCase.categoryIdLiteral} was acknowledged as ${pet.categoryId}: silently rounded`,
        )
      }
    }
  }
  return problems
}

/** How a failing case is printed: the exact bytes, ready to paste into a regression test. */
export function describeCase(fuzzCase: FuzzCase): string {
  const bytes = serialise(fuzzCase.request)
  const preview =
    bytes.length > 600
      ? `${bytes.subarray(0, 600).toString('latin1')}… (${bytes.length} bytes)`
      : bytes.toString('latin1')
  return `request bytes (base64, replay with rawExchange(port, Buffer.from(…, 'base64'))):\n${bytes.toString('base64').slice(0, 4_000)}\nas text:\n${JSON.stringify(preview)}`
}

export interface FuzzRun {
  readonly runs: number
  readonly seed?: number
  /** Stop generating new cases after this long; the cases run so far still count. */
  readonly timeLimitMs: number
  readonly hugeUpTo?: number
  /** Asks the server whether it is still healthy. */
  readonly healthy: () => Promise<boolean>
  /** Keep odd and random paths under the spec's base path. */
  readonly ownPathsOnly?: boolean
}

/** Runs the property; throws fast-check's report (seed, shrunk counterexample, its problems) on a failure. */
export async function runFuzz(contract: Contract, target: FuzzTarget, run: FuzzRun): Promise<FuzzStats> {
  const stats: FuzzStats = { cases: 0, byStatus: new Map(), created: [] }
  await fc.assert(
    fc.asyncProperty(
      requestArbitrary(contract.spec, target.apiKey, run.hugeUpTo, run.ownPathsOnly),
      async (fuzzCase) => {
        const problems = await checkCase(contract, target, fuzzCase, stats)
        if (stats.cases % 100 === 0 && !(await run.healthy())) problems.push('GET /healthz no longer answers 200')
        if (problems.length > 0) throw new Error(`${problems.join('\n')}\n${describeCase(fuzzCase)}`)
      },
    ),
    {
      includeErrorInReport: true,
      numRuns: run.runs,
      interruptAfterTimeLimit: run.timeLimitMs,
      markInterruptAsFailure: false,
      ...(run.seed === undefined ? {} : { seed: run.seed }),
    },
  )
  return stats
}
