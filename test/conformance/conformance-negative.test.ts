// The judge is awake: Prism in front of a deliberately wrong upstream must report every defect,
// through the same runner the real suite uses. If one went unreported (as some JSON Schema
// 2020-12 keywords do on OpenAPI 3.1 documents, stoplightio/prism#2797), the suite would be blind
// to it, and this test fails.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import type { ConformanceCase } from '../../conformance/cases.js'
import { runConformance } from '../../conformance/run.js'
import { readSpecDocument } from '../../src/contract/load.js'

const PET = { id: 1, name: 'Rex', categoryId: 2, status: 'available' }

interface Defect {
  readonly defect: string
  /** The case the runner sends, with the status the wrong upstream answers. */
  readonly case: ConformanceCase
  /** What the wrong upstream answers. */
  readonly answer: { readonly status: number; readonly body: unknown; readonly contentType?: string }
  /** The problem the runner must report: Prism's words, through sl-violations or its own 500. */
  readonly reported: RegExp
}

const DEFECTS: readonly Defect[] = [
  {
    defect: 'a Pet without name',
    case: listPets(200),
    answer: { status: 200, body: [{ id: 1, categoryId: 2 }] },
    reported: /required property 'name'/,
  },
  {
    defect: 'a Pet without id',
    case: listPets(200),
    answer: { status: 200, body: [{ name: 'Rex', categoryId: 2 }] },
    reported: /required property 'id'/,
  },
  {
    defect: 'a string id',
    case: getPet(200),
    answer: { status: 200, body: { ...PET, id: '1' } },
    reported: /id must be integer/,
  },
  {
    defect: 'a categoryId that is not an integer',
    case: getPet(200),
    answer: { status: 200, body: { ...PET, categoryId: 1.5 } },
    reported: /categoryId must be integer/,
  },
  {
    defect: 'an id beyond int64 as JSON carries it',
    case: getPet(200),
    answer: { status: 200, body: { ...PET, id: 2 ** 64 } },
    reported: /id must be <= 9007199254740991/,
  },
  {
    defect: 'a status outside the enum',
    case: getPet(200),
    answer: { status: 200, body: { ...PET, status: 'lost' } },
    reported: /status must be equal to one of the allowed values/,
  },
  {
    defect: 'an object where Pets is an array',
    case: listPets(200),
    answer: { status: 200, body: PET },
    reported: /body must be array/,
  },
  {
    defect: '200 where the spec says 201',
    case: createPet(200),
    answer: { status: 200, body: PET },
    reported: /Unable to match the returned status code with those defined in the document: 201,400,401/,
  },
  {
    defect: 'an Error without code',
    case: getPet(404),
    answer: { status: 404, body: { message: 'gone', status: 404 } },
    reported: /required property 'code'/,
  },
  {
    defect: 'an Error without message',
    case: listPets(401, 'none'),
    answer: { status: 401, body: { code: 'unauthorized', status: 401 } },
    reported: /required property 'message'/,
  },
  {
    defect: 'an Error whose status is a string',
    case: getPet(404),
    answer: { status: 404, body: { code: 'not_found', message: 'gone', status: '404' } },
    reported: /status must be integer/,
  },
  {
    defect: 'a body that is not JSON',
    case: getPet(200),
    answer: { status: 200, body: 'Rex', contentType: 'text/plain' },
    reported: /content type|media type|text\/plain/i,
  },
]

t.test('Prism reports every defect of a deliberately wrong upstream', async (t) => {
  const upstream = await startWrongUpstream(t)
  const report = await runConformance({
    baseUrl: `${upstream.url}/v1`,
    apiKey: 'any-key',
    cases: DEFECTS.map((d) => ({ ...d.case, intent: d.defect })),
  })
  t.equal(upstream.requests(), DEFECTS.length, 'every case reached the wrong upstream once')
  t.equal(report.ok, false, 'the run fails')
  for (const [index, defect] of DEFECTS.entries()) {
    const result = report.results[index]
    // Only Prism's words count: the runner's own Error-body check must not stand in for the judge.
    const fromPrism = (result?.problems ?? []).filter((p) => p.startsWith('Prism')).join('\n')
    t.match(fromPrism, defect.reported, `${defect.defect} is reported by Prism [${result?.via}]:\n${fromPrism}`)
  }
})

t.test(
  'the spec uses no JSON Schema keyword that Prism would skip on OpenAPI 3.1 (stoplightio/prism#2797)',
  async (t) => {
    // Prism compiles schemas of a 3.1 document with a draft-07 ajv unless each schema names its
    // $schema: keywords newer than draft-07 would be ignored without a word. The defects above prove
    // the keywords in use are enforced; this fails the day a newer one is added, so it gets a
    // defect of its own (or Prism gets a 3.0.3 copy of the spec).
    const newer = [
      '$dynamicRef',
      '$dynamicAnchor',
      '$recursiveRef',
      'unevaluatedProperties',
      'unevaluatedItems',
      'prefixItems',
      'dependentRequired',
      'dependentSchemas',
      'minContains',
      'maxContains',
    ]
    const found: string[] = []
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}/${i}`))
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (newer.includes(key)) found.push(`${at}/${key}`)
          walk(value, `${at}/${key}`)
        }
      }
    }
    walk(readSpecDocument(), '#')
    t.same(found, [])
  },
)

function listPets(status: number, auth: 'key' | 'none' = 'key'): ConformanceCase {
  return { intent: '', operationId: 'listPets', request: { method: 'GET', path: '/pets', auth }, status }
}
function getPet(status: number): ConformanceCase {
  return { intent: '', operationId: 'getPet', request: { method: 'GET', path: '/pets/1' }, status }
}
function createPet(status: number): ConformanceCase {
  return {
    intent: '',
    operationId: 'createPet',
    request: { method: 'POST', path: '/pets', json: { name: 'Rex', categoryId: 2 } },
    status,
  }
}

/** Answers the n-th request with the n-th defect: the runner sends one request per case, in order. */
async function startWrongUpstream(t: Test): Promise<{ url: string; requests: () => number }> {
  let requests = 0
  const server: Server = createServer((_req, res) => {
    const defect = DEFECTS[requests++]
    const answer = defect?.answer ?? {
      status: 500,
      body: { code: 'no_defect', message: 'unknown defect', status: 500 },
    }
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)
    res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests }
}
