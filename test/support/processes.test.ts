// freePort: a port the server it is for can bind, drawn where no other process's outgoing
// connection is given one meanwhile (a bench server once lost its port so, under load).
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import t from 'tap'
import { freePort } from '../../scripts/lib/processes.js'

const range = (() => {
  try {
    return readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number)
  } catch {
    return undefined
  }
})()

t.test('a free port is below the range the kernel gives connections, and can be listened on', async (t) => {
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()))
  for (const port of ports) {
    if (range !== undefined) t.ok(port < (range[0] ?? 0), `${port} is below ${range[0]}`)
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', resolve)
    })
    await new Promise((resolve) => server.close(resolve))
  }
})
