// The ceiling: a bare node:http server that answers with the bytes the sandbox sends for the same
// requests (the fixture pets, byte for byte, headers included), with no routing library, auth,
// validation or storage, and sends them the fastest way node:http offers. No Node server can be
// much faster than this one. test/bench/ceiling.test.ts checks that the bytes stay the sandbox's.
//
// With --durable it is also the ceiling of a durable create: each create's body is appended to
// DATA_FILE and fdatasynced before its 201, in the cheapest way that keeps the promise (one
// write and one fdatasync for all the bodies that arrived while the previous ones were flushed).
// It still neither parses nor checks nor stores anything.
//
// With TLS_CERT and TLS_KEY (PEM files, as the sandbox reads them) it serves HTTPS as the sandbox
// does: one node:http2 server, HTTP/2 to clients that offer it (ALPN) and HTTP/1.1 to the rest.
import { Buffer } from 'node:buffer'
import { readFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { createServer } from 'node:http'
import { createSecureServer } from 'node:http2'
import process from 'node:process'
import { URL } from 'node:url'

const pets = JSON.parse(readFileSync(new URL('../fixtures/pets.json', import.meta.url), 'utf8'))

// Bodies as text, as the sandbox sends them (a profile shows both servers writing through writev).
const JSON_TYPE = 'application/json; charset=utf-8'
const LIST = JSON.stringify(pets.slice(0, 20))
const BY_ID = new Map(pets.map((pet) => [String(pet.id), JSON.stringify(pet)]))
const NOT_FOUND = JSON.stringify({ code: 'not_found', message: 'Not found', status: 404 })
// getPet is deprecated: the sandbox sends these on every answer of it (spec/openapi.yaml).
const GET_PET_HEADERS = {
  Deprecation: '@1767225600',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
}
// Every create answers the same pet: the one after the fixtures.
const CREATED_ID = pets.length + 1
const CREATED = JSON.stringify({ id: CREATED_ID, name: 'Bench', categoryId: 1, status: 'available' })
const CREATED_HEADERS = { Location: `/v1/pets/${CREATED_ID}` }

const durableFile = process.argv.includes('--durable') ? await open(process.env.DATA_FILE, 'a') : undefined
const NEWLINE = Buffer.from('\n')
/** Bodies (and their answers) waiting for the next flush, and whether a flush is under way. */
let waiting = []
let flushing = false

async function flush() {
  flushing = true
  while (waiting.length > 0) {
    const batch = waiting
    waiting = []
    await durableFile.write(Buffer.concat(batch.map(({ body }) => body)))
    await durableFile.datasync()
    for (const { answer } of batch) answer()
  }
  flushing = false
}

/** Runs `answer` once `body` (and a newline) is on disk. */
function appendDurably(body, answer) {
  waiting.push({ body: Buffer.concat([body, NEWLINE]), answer })
  if (!flushing) void flush()
}

function send(res, status, body, headers) {
  res.writeHead(status, { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(body) })
  res.end(body)
}

function answer(req, res) {
  const path = req.url.split('?')[0]
  if (req.method === 'GET' && path === '/v1/pets') return send(res, 200, LIST)
  if (req.method === 'GET' && path.startsWith('/v1/pets/')) {
    const pet = BY_ID.get(path.slice('/v1/pets/'.length))
    return pet === undefined ? send(res, 404, NOT_FOUND, GET_PET_HEADERS) : send(res, 200, pet, GET_PET_HEADERS)
  }
  if (req.method === 'POST' && path === '/v1/pets') {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const answer = () => send(res, 201, CREATED, CREATED_HEADERS)
      if (durableFile === undefined) answer()
      else appendDurably(Buffer.concat(chunks), answer)
    })
    return
  }
  send(res, 404, NOT_FOUND)
}

const { TLS_CERT, TLS_KEY } = process.env
const server =
  TLS_CERT === undefined
    ? createServer(answer)
    : createSecureServer({ allowHTTP1: true, cert: readFileSync(TLS_CERT), key: readFileSync(TLS_KEY) }, answer)
server.listen(Number(process.env.PORT ?? 4020), process.env.HOST ?? '127.0.0.1')
process.once('SIGTERM', () => server.close(() => process.exit(0)))
