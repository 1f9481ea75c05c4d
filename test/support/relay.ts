// A TCP relay to PostgreSQL for one replica, so that a test can fail that replica's link alone:
// hold back a message (and what follows on its connection) until `pass()`, or cut every
// connection and refuse new ones until `cut(false)`.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import type { Test } from 'tap'

export async function startRelay(t: Test, target: number) {
  let armed: { marker: string; act: () => void; came: () => void } | undefined
  let down = false
  const held: Array<() => void> = []
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    if (down) return void client.destroy()
    const upstream = connect(target, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => undefined)
      socket.on('close', () => (sockets.delete(socket), client.destroy(), upstream.destroy()))
    }
    let holding: Buffer[] | undefined
    client.on('data', (data) => {
      if (holding === undefined && armed !== undefined && data.includes(armed.marker)) {
        armed.act()
        armed.came()
        armed = undefined
        const kept: Buffer[] = (holding = [])
        held.push(() => {
          for (const chunk of kept) upstream.write(chunk)
          holding = undefined
        })
      }
      if (holding !== undefined) holding.push(data)
      else upstream.write(data)
    })
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  return {
    port: (server.address() as AddressInfo).port,
    /** Holds back the first client message holding `marker` until `pass()`, calling `act` as it comes. */
    holdBack: (marker: string, act: () => void) =>
      new Promise<void>((came) => {
        armed = { marker, act, came }
      }),
    pass: () => held.splice(0).forEach((release) => release()),
    /** Ends every connection and refuses new ones (true), or lets them through again (false). */
    cut(on: boolean) {
      down = on
      if (on) for (const socket of sockets) socket.destroy()
    },
  }
}
