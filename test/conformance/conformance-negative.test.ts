// The judge is awake: Prism in front of a deliberately wrong upstream must report every defect,
// through the same runner the real suite uses. If one went unreported (as some JSON Schema
// 2020-12 keywords do on OpenAPI 3.1 documents, stoplightio/prism#2797), the suite would be blind
// to it, and this test fails. Over TLS the answers pass through the relay (conformance/relay.ts),
// so the same defects are served over HTTPS/1.1 and HTTP/2: the relay must hide none of them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import type { ConformanceCase } from '../../conformance/cases.js'
import { PROTOCOLS, runConformance, type Protocol } from '../../conformance/run.js'
import { readSpecDocument } from '../../src/contract/load.js'
import { tlsFiles } from '../../src/tls/tls.js'

const PET = { id: 1, name: 'Rex', categoryId: 2, status: 'available' }
const REQUESTS = {
  listPets: { method: 'GET', path: '/pets' },
  getPet: { method: 'GET', path: '/pets/1' },
  createPet: { method: 'POST', path: '/pets', json: { name: 'Rex', categoryId: 2 } },
} as const

/** The case the runner sends; the wrong upstream answers it with `status` too. */
const send = (operationId: keyof typeof REQUESTS, status: number, auth: 'key' | 'none' = 'key'): ConformanceCase => ({
  intent: '',
  operationId,
  request: { ...REQUESTS[operationId], auth },
  status,
})

/** [the defect, the case sent, the body the upstream answers, what Prism must report, a content type other than JSON] */
type Defect = [defect: string, sent: ConformanceCase, body: unknown, reported: RegExp, contentType?: string]

const DEFECTS: readonly Defect[] = [
  ['a Pet without name', send('listPets', 200), [{ id: 1, categoryId: 2 }], /required property 'name'/],
  ['a Pet without id', send('listPets', 200), [{ name: 'Rex', categoryId: 2 }], /required property 'id'/],
  ['a string id', send('getPet', 200), { ...PET, id: '1' }, /id must be integer/],
  ['a fractional categoryId', send('getPet', 200), { ...PET, categoryId: 1.5 }, /categoryId must be integer/],
  ['an id beyond 2^53-1', send('getPet', 200), { ...PET, id: 2 ** 64 }, /id must be <= 9007199254740991/],
  ['a status outside the enum', send('getPet', 200), { ...PET, status: 'lost' }, /one of the allowed values/],
  ['an object where Pets is an array', send('listPets', 200), PET, /body must be array/],
  ['200 where the spec says 201', send('createPet', 200), PET, /the returned status code .*: 201,400,401/],
  ['an Error without code', send('getPet', 404), { message: 'gone', status: 404 }, /required property 'code'/],
  ['an Error without message', send('listPets', 401, 'none'), { code: 'x', status: 401 }, /property 'message'/],
  ['an Error.status string', send('getPet', 404), { code: 'x', message: 'm', status: '404' }, /status must be integer/],
  ['a body that is not JSON', send('getPet', 200), 'Rex', /content type|media type|text\/plain/i, 'text/plain'],
]

for (const protocol of Object.keys(PROTOCOLS) as Protocol[]) {
  t.test(`Prism reports every defect of a deliberately wrong upstream, over ${PROTOCOLS[protocol]}`, async (t) => {
    const upstream = await startWrongUpstream(t, protocol)
    const report = await runConformance({
      baseUrl: `${upstream.url}/v1`,
      apiKey: 'any-key',
      cases: DEFECTS.map(([defect, sent]) => ({ ...sent, intent: defect })),
      protocol,
      ca: upstream.ca,
    })
    const version = protocol === 'h2' ? '2.0' : '1.1'
    t.same(
      upstream.requests(),
      Array(DEFECTS.length).fill(version),
      `every case reached the wrong upstream once, over HTTP/${version}`,
    )
    t.equal(report.ok, false, 'the run fails')
    for (const [index, [defect, , , reported]] of DEFECTS.entries()) {
      const result = report.results[index]
      // Only Prism's words count: the runner's own Error-body check must not stand in for the judge.
      const fromPrism = (result?.problems ?? []).filter((p) => p.startsWith('Prism')).join('\n')
      t.match(fromPrism, reported, `${defect} is reported by Prism [${result?.via}]:\n${fromPrism}`)
    }
  })
}

t.test(
  'the spec uses no JSON Schema keyword that Prism would skip on OpenAPI 3.1 (stoplightio/prism#2797)',
  async (t) => {
    // Prism compiles schemas of a 3.1 document with a draft-07 ajv unless each schema names its
    // $schema: keywords newer than draft-07 would be ignored without a word. The defects above prove
    // the keywords in use are enforced; this fails the day a newer one is added, so it gets a
    // defect of its own (or Prism gets a 3.0.3 copy of the spec).
    const newer = (
      '$dynamicRef $dynamicAnchor $recursiveRef unevaluatedProperties unevaluatedItems prefixItems ' +
      'dependentRequired dependentSchemas minContains maxContains'
    ).split(' ')
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

interface WrongUpstream {
  readonly url: string
  /** The CA its certificate is signed by, over TLS. */
  readonly ca: string | undefined
  /** The HTTP version of each request it answered. */
  readonly requests: () => readonly string[]
}

/**
 * Answers the n-th request with the n-th defect: the runner sends one request per case, in order.
 * Over TLS it serves HTTP/2 and HTTP/1.1 on one port, as the sandbox does.
 */
async function startWrongUpstream(t: Test, protocol: Protocol): Promise<WrongUpstream> {
  const requests: string[] = []
  const answer = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void => {
    const [, sent, body, , contentType] = DEFECTS[requests.push(req.httpVersion) - 1] ?? []
    res.writeHead(sent?.status ?? 500, { 'content-type': contentType ?? 'application/json' })
    res.end(
      typeof body === 'string' ? body : JSON.stringify(body ?? { code: 'no_defect', message: 'unknown', status: 500 }),
    )
  }
  const tls = protocol === 'http1' ? undefined : await tlsFiles({ kind: 'auto', names: [] }, undefined)
  const server = tls
    ? createSecureServer({ cert: tls.cert, key: tls.key, allowHTTP1: true }, answer)
    : createServer(answer)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`, ca: tls?.ca, requests: () => requests }
}
