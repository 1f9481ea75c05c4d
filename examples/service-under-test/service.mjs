// A service under test written as an ES module, as a team would have one: an HTTP server that
// calls the Animal Store (here the sandbox) from its own code and names no namespace itself.
// Started with its telemetry and OpenTelemetry's loader hook first (`npm start`):
//
//   node --import ./register.mjs service.mjs
//
//   SANDBOX_URL      the API's base URL (http://127.0.0.1:<port>/v1)
//   SANDBOX_API_KEY  its key
//   PORT             where to listen (0: any free port); prints "listening on <port>" once ready
import { createServer } from 'node:http'

const sandboxUrl = required('SANDBOX_URL')
const apiKey = required('SANDBOX_API_KEY')

function required(name) {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} is required`)
  return value
}

/** GET /adopt: look at the first pet, then add one: two calls to the sandbox, no namespace named. */
async function adopt(res) {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
  const listed = await fetch(`${sandboxUrl}/pets?limit=1`, { headers })
  await listed.body?.cancel()
  const created = await fetch(`${sandboxUrl}/pets`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Adopted', categoryId: 1 }),
  })
  const pet = await created.json()
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ listed: listed.status, created: created.status, petId: pet.id ?? null }))
}

const server = createServer((req, res) => {
  if (req.method !== 'GET' || req.url !== '/adopt') {
    res.writeHead(404).end()
    return
  }
  adopt(res).catch((error) => {
    res.writeHead(502, { 'content-type': 'text/plain' })
    res.end(error instanceof Error ? error.message : String(error))
  })
})
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`listening on ${server.address().port}`)
})
