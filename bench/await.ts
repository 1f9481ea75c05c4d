// await: how soon a wait on the server (POST /__admin/requests/await) answers once the call it
// waits for is answered. Each sample opens a wait in a namespace of its own, makes the call on
// another connection, and takes the time from the call's answer to the wait's, as the client sees
// both: p50 and p99 over the samples.
import { request, Agent } from 'node:http'

/** The sandbox started for the scenario, and how to stop it. */
interface Server {
  readonly origin: string
  stop(): Promise<void>
}

const ADMIN = { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' }
const API = { authorization: 'Bearer sandbox-api-key', 'content-type': 'application/json' }
/**
 * The call is made this long after the wait is sent: on loopback the wait is open by then. Were it
 * not, the wait would answer once open, later: the lag measured errs on the long side.
 */
const OPENED_MS = 5

export async function awaited(
  start: () => Promise<Server>,
  samples: number,
): Promise<{ samples: number; reportedP50Ms?: number; reportedP99Ms?: number; reportedMaxMs?: number }> {
  const server = await start()
  const waits = new Agent({ keepAlive: true, maxSockets: 1 })
  const calls = new Agent({ keepAlive: true, maxSockets: 1 })
  const lags: number[] = []
  try {
    // The first tenth warms the server up (its code compiled, its connections open): not counted.
    const warmUp = Math.ceil(samples / 10)
    for (let i = 0; i < warmUp + samples; i++) {
      const namespace = `await-${i}`
      await send(calls, server.origin, 'POST', `/__admin/reset?namespace=${namespace}`, ADMIN, '{}')
      const expectations = [{ operationId: 'createPet', count: 1 }]
      const body = JSON.stringify({ timeoutMs: 10_000, expectations })
      const waiting = send(waits, server.origin, 'POST', `/__admin/requests/await?namespace=${namespace}`, ADMIN, body)
      await new Promise((resolve) => setTimeout(resolve, OPENED_MS))
      const pet = JSON.stringify({ name: 'Bench', categoryId: 1 })
      const answered = await send(
        calls,
        server.origin,
        'POST',
        '/v1/pets',
        { ...API, 'x-sandbox-namespace': namespace },
        pet,
      )
      const reported = await waiting
      // An earlier commit (--before) may have no waits to measure.
      if (reported.status === 404 && i === 0) return { samples: 0 }
      if (!reported.text.includes('"endedBy":"met"')) throw new Error(`the wait did not end met: ${reported.text}`)
      if (i >= warmUp) lags.push(Math.max(0, reported.at - answered.at))
    }
  } finally {
    waits.destroy()
    calls.destroy()
    await server.stop()
  }
  const sorted = lags.sort((a, b) => a - b)
  const at = (q: number): number =>
    Math.round((sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN) * 100) / 100
  return { samples: sorted.length, reportedP50Ms: at(0.5), reportedP99Ms: at(0.99), reportedMaxMs: at(1) }
}

/** One request; its answer's text and when its last byte came (performance.now()). */
function send(
  agent: Agent,
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string; at: number }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, origin), { method, headers, agent, timeout: 20_000 }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, at: performance.now() }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 20 s`)))
    req.on('error', reject)
    req.end(body)
  })
}
