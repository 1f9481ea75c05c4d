// A stand-in for the real Animal Store API, written from the interface alone (none of the
// sandbox's code): a plain node:http server over an array. Each switch changes one rule, as a real
// service that drifted from the interface (or from the sandbox) would.
import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Test } from 'tap'
import { JSON_HEADERS, ROOT } from '../support/sandbox.js'

export interface Switches {
  /** listPets answers the newest first. */
  newestFirst?: boolean
  /** getPet answers without the pet's status. */
  dropStatus?: boolean
  /** createPet answers 200 instead of 201. */
  createdIs200?: boolean
  /** getPet's Sunset header is an ISO date instead of an HTTP date. */
  isoSunset?: boolean
  /** listPets without a limit answers 10 pets instead of 20. */
  defaultLimit10?: boolean
  /** Every answer waits this long. */
  delayMs?: number
  /** Every answer is HTML. */
  garbage?: boolean
  /**
   * Every answer is a 401 that echoes the bearer token it received: in WWW-Authenticate, in a
   * header of its own and in its body, as a careless real service might; and encoded: percent-encoded
   * in Location, as base64 and in Basic credentials in its body.
   */
  echoToken?: boolean
  /** Every answer is a JSON array this many bytes long, written as the client reads it. */
  hugeBytes?: number
  /** With hugeBytes: its Content-Length is sent ahead (chunked otherwise). */
  declareLength?: boolean
}

interface Pet {
  id: number
  name: string
  categoryId: number
  status?: string
}

const PETS: readonly Pet[] = JSON.parse(readFileSync(join(ROOT, 'fixtures/pets.json'), 'utf8')) as Pet[]
const STATUSES = ['available', 'pending', 'sold']

export interface StandIn {
  readonly baseUrl: string
  switches: Switches
  /** Back to the fixtures' pets, no switch. */
  reset(): void
  /** Every Authorization header it received. */
  readonly authorizations: string[]
  /** The headers of every request it received, in order. */
  readonly received: IncomingHttpHeaders[]
  /** The bytes of huge answers written so far. */
  readonly hugeWritten: () => number
  close(): Promise<void>
}

/** A stand-in stopped when the test ends, and the settings that point a sandbox at it with `apiKey`. */
export async function standInFor(t: Test, apiKey: string) {
  const standIn = await startStandIn(apiKey)
  t.teardown(() => standIn.close())
  return { standIn, upstream: { UPSTREAM: standIn.baseUrl, UPSTREAM_API_KEY: apiKey } }
}

export async function startStandIn(apiKey: string): Promise<StandIn> {
  let pets: Pet[] = []
  const authorizations: string[] = []
  const received: IncomingHttpHeaders[] = []
  let hugeWritten = 0
  const standIn = {
    switches: {} as Switches,
    authorizations,
    received,
    hugeWritten: () => hugeWritten,
    reset() {
      pets = PETS.map((pet) => ({ ...pet }))
      standIn.switches = {}
    },
  }
  standIn.reset()

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const s = standIn.switches
    const write = (): void => {
      if (s.garbage) {
        res.writeHead(status, { 'content-type': 'text/html' }).end('<html><body>Bad gateway</body></html>')
        return
      }
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
    }
    if (s.delayMs) setTimeout(write, s.delayMs)
    else write()
  }
  const error = (res: ServerResponse, status: number, code: string, headers?: Record<string, string>): void =>
    send(res, status, { code, message: `stand-in says ${code}`, status }, headers)

  const handle = (req: IncomingMessage, res: ServerResponse, text: string): void => {
    const url = new URL(req.url ?? '/', 'http://stand-in')
    const path = url.pathname.replace(/^\/v1/, '')
    authorizations.push(req.headers.authorization ?? '')
    received.push(req.headers)
    const { echoToken, hugeBytes } = standIn.switches
    if (hugeBytes !== undefined) return writeHuge(res, hugeBytes)
    if (echoToken) {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '')
      const said = `token ${token} is revoked`
      return send(
        res,
        401,
        {
          code: 'unauthorized',
          message: said,
          status: 401,
          token,
          base64: Buffer.from(token).toString('base64'),
          basic: `Basic ${Buffer.from(`user:${token}`).toString('base64')}`,
        },
        {
          location: `/login?token=${encodeURIComponent(token)}`,
          'www-authenticate': `Bearer realm="animal-store", error="invalid_token", error_description="${said}"`,
          'x-rejected-token': token,
        },
      )
    }
    if (req.headers.authorization === undefined)
      return error(res, 401, 'unauthorized', { 'www-authenticate': 'Bearer realm="animal-store"' })
    if (req.headers.authorization !== `Bearer ${apiKey}`)
      return error(res, 401, 'unauthorized', {
        'www-authenticate': 'Bearer realm="animal-store", error="invalid_token"',
      })
    if (path === '/pets' && req.method === 'GET') {
      const status = url.searchParams.get('status')
      const limit = Number(url.searchParams.get('limit') ?? (standIn.switches.defaultLimit10 ? 10 : 20))
      const ordered = standIn.switches.newestFirst ? [...pets].reverse() : pets
      return send(res, 200, ordered.filter((pet) => status === null || pet.status === status).slice(0, limit))
    }
    if (path === '/pets' && req.method === 'POST') {
      let body: Partial<Pet>
      try {
        body = JSON.parse(text) as Partial<Pet>
      } catch {
        return error(res, 400, 'malformed_json')
      }
      if (typeof body.name !== 'string' || !Number.isInteger(body.categoryId)) return error(res, 400, 'invalid_body')
      if (body.status !== undefined && !STATUSES.includes(body.status)) return error(res, 400, 'invalid_body')
      const pet: Pet = {
        id: Math.max(0, ...pets.map((p) => p.id)) + 1,
        name: body.name,
        categoryId: body.categoryId as number,
        status: body.status ?? 'available',
      }
      pets.push(pet)
      return send(res, standIn.switches.createdIs200 ? 200 : 201, pet, { location: `/v1/pets/${pet.id}` })
    }
    const one = /^\/pets\/(\d+)$/.exec(path)
    if (one && req.method === 'GET') {
      const deprecation = {
        deprecation: '@1767225600',
        sunset: standIn.switches.isoSunset ? '2030-12-05T00:00:00Z' : 'Thu, 05 Dec 2030 00:00:00 GMT',
        link: '</v1/pets>; rel="successor-version"',
      }
      const pet = pets.find((p) => p.id === Number(one[1]))
      if (!pet) return error(res, 404, 'not_found', deprecation)
      const { status, ...rest } = pet
      return send(res, 200, standIn.switches.dropStatus ? rest : { ...rest, status }, deprecation)
    }
    if (path === '/store/orders' && req.method === 'GET') return send(res, 200, [{ id: 1, petId: 3, quantity: 1 }])
    return error(res, 404, 'not_found')
  }

  // `[0,0,...,0]`, 64 KiB at a time, each once the last has drained: the stand-in holds one chunk.
  const writeHuge = (res: ServerResponse, bytes: number): void => {
    const chunk = Buffer.from(`${'0,'.repeat(32 * 1024)}`)
    let left = Math.floor(bytes / chunk.length)
    const headers: Record<string, string | number> = { 'content-type': 'application/json' }
    if (standIn.switches.declareLength) headers['content-length'] = left * chunk.length + 3
    res.writeHead(200, headers)
    res.write('[')
    const more = (): void => {
      while (left > 0 && !res.destroyed) {
        left--
        hugeWritten += chunk.length
        if (!res.write(chunk)) return void res.once('drain', more)
      }
      if (!res.destroyed) res.end('0]')
    }
    more()
  }

  const server = createServer((req, res) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (text += chunk))
    req.on('end', () => handle(req, res, text))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(standIn, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
}

/**
 * What a client does, in `namespace`: create, list, list filtered, get the pet made, get one that is
 * not there (five requests); with `withoutKey`, a list without the key as well.
 */
export async function clientSequence(apiUrl: string, namespace: string, withoutKey = false): Promise<void> {
  const headers = { ...JSON_HEADERS, 'x-sandbox-namespace': namespace }
  const created = await fetch(`${apiUrl}/pets`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Drifter', categoryId: 2, status: 'pending' }),
  })
  if (created.status !== 201) throw new Error(`the create answered ${created.status}`)
  const { id } = (await created.json()) as { id: number }
  for (const target of ['/pets', '/pets?status=pending&limit=5', `/pets/${id}`, '/pets/999999'])
    await (await fetch(`${apiUrl}${target}`, { headers })).arrayBuffer()
  if (withoutKey) await (await fetch(`${apiUrl}/pets`, { headers: { 'x-sandbox-namespace': namespace } })).arrayBuffer()
}
