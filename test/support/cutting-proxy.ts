// A TCP relay between a replica and PostgreSQL that, once armed, passes on the first message
// carrying a marker (a COMMIT) and then cuts the connection: the server gets the statement, the
// client never hears its answer, as when a network drops between the two. Or it holds that message
// back: the server never gets it, and the client waits for an answer until its own timeout. Or it
// delays that message: the server gets it, and what the client sent after it, only when the test
// says, however long after the client gave up.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import type { Test } from 'tap'

export interface CuttingProxy {
  readonly port: number
  /** The next client message that holds `marker` reaches the server, then its connection is cut. */
  cutAfter(marker: string): void
  /** The next client message that holds `marker` never reaches the server: its connection is cut instead. */
  cutBefore(marker: string): void
  /**
   * The next client message that holds `marker` is never passed on, and its connection is left open
   * on the client's side, even once the server is gone; resolves when that message came. Several
   * markers may wait at once.
   */
  holdBack(marker: string): Promise<void>
  /**
   * The next client message that holds `marker` waits, with all its connection sends after it (a
   * close too), until `pass()`; `came` resolves when that message came.
   */
  delay(marker: string): { readonly came: Promise<void>; pass(): void }
  /** How many connections were cut. */
  readonly cuts: number
}

export async function startCuttingProxy(t: Test, target: number): Promise<CuttingProxy> {
  let armed: { marker: string; passes: boolean } | undefined
  const holding: Array<{ marker: string; came: () => void }> = []
  const delaying: Array<{ marker: string; came: () => void; passed: Promise<void> }> = []
  let cuts = 0
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    let held = false
    let delayed: Buffer[] | undefined
    client.on('data', (chunk) => {
      if (held) return
      if (delayed !== undefined) return void delayed.push(chunk)
      const delay = delaying.findIndex(({ marker }) => chunk.includes(marker))
      if (delay !== -1) {
        const [{ came, passed }] = delaying.splice(delay, 1) as [(typeof delaying)[number]]
        const waiting = (delayed = [chunk])
        came()
        void passed.then(() => {
          for (const sent of waiting) upstream.write(sent)
          delayed = undefined
          if (client.destroyed) upstream.end()
        })
        return
      }
      const hold = holding.findIndex(({ marker }) => chunk.includes(marker))
      if (hold !== -1) {
        held = true
        holding.splice(hold, 1)[0]?.came()
      } else if (armed !== undefined && chunk.includes(armed.marker)) {
        const { passes } = armed
        armed = undefined
        cuts++
        client.pause()
        // The message reaches the server whole (or not at all); the client's side closes before any answer.
        if (passes) upstream.end(chunk)
        else upstream.end()
        client.destroy()
      } else upstream.write(chunk)
    })
    upstream.on('data', (chunk) => client.write(chunk))
    client.on('close', () => delayed === undefined && upstream.end())
    upstream.on('close', () => held || client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  return {
    port: (server.address() as AddressInfo).port,
    cutAfter: (marker) => void (armed = { marker, passes: true }),
    cutBefore: (marker) => void (armed = { marker, passes: false }),
    holdBack: (marker) => new Promise<void>((came) => void holding.push({ marker, came })),
    delay: (marker) => {
      let came!: () => void
      let pass!: () => void
      const cameP = new Promise<void>((resolve) => (came = resolve))
      const passed = new Promise<void>((resolve) => (pass = resolve))
      delaying.push({ marker, came, passed })
      return { came: cameP, pass }
    },
    get cuts() {
      return cuts
    },
  }
}
