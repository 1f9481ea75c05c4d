// The ceiling: a bare node:http server that answers with the bytes the sandbox sends for the
// same requests (the first 20 fixture pets, one pet, a created pet), with no routing library,
// auth, validation or storage. No Node server can be much faster than this one.
import { readFileSync } from 'node:fs'
import { Buffer } from 'node:buffer'
import { createServer } from 'node:http'
import process from 'node:process'
import { URL } from 'node:url'

const pets = JSON.parse(readFileSync(new URL('../fixtures/pets.json', import.meta.url), 'utf8'))
const LIST = Buffer.from(JSON.stringify(pets.slice(0, 20)))
const ONE = Buffer.from(JSON.stringify(pets[0]))
const CREATED = Buffer.from(JSON.stringify({ id: pets.length + 1, name: 'Bench', categoryId: 1, status: 'available' }))
const NOT_FOUND = Buffer.from(JSON.stringify({ code: 'not_found', message: 'Not found', status: 404 }))

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length })
  res.end(body)
}

const server = createServer((req, res) => {
  const path = req.url.split('?')[0]
  if (req.method === 'GET' && path === '/v1/pets') return send(res, 200, LIST)
  if (req.method === 'GET' && path.startsWith('/v1/pets/')) return send(res, 200, ONE)
  if (req.method === 'POST' && path === '/v1/pets') {
    req.resume()
    req.on('end', () => send(res, 201, CREATED))
    return
  }
  send(res, 404, NOT_FOUND)
})
server.listen(Number(process.env.PORT ?? 4020), process.env.HOST ?? '127.0.0.1')
process.once('SIGTERM', () => server.close(() => process.exit(0)))
