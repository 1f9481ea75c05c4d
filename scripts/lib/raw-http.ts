// A raw HTTP/1.1 client over a TCP socket: it sends bytes exactly as given (odd methods, control
// characters in headers, lying Content-Length) where fetch and http.request would refuse them.
import { connect, type Socket } from 'node:net'

export interface RawResponse {
  readonly status: number
  /** Header names in lower case; a repeated header keeps its last value. */
  readonly headers: Record<string, string>
  readonly body: Buffer
}

export interface RawRequest {
  readonly method: string
  /** The request target, sent verbatim. */
  readonly target: string
  readonly headers?: ReadonlyArray<readonly [string, string]>
  readonly body?: Buffer | string
}

/**
 * Serialises a request; adds Host and (for a body) Content-Length unless given. Like fetch, it
 * keeps the connection alive and closes it itself once the answer is in: with Connection: close,
 * a server that answers before it has read a large body (a 401 to a big POST) closes while the
 * client still sends, and the client's kernel may drop the answer on the reset that follows.
 */
export function serialise({ method, target, headers = [], body }: RawRequest): Buffer {
  const names = new Set(headers.map(([name]) => name.toLowerCase()))
  const lines = [`${method} ${target} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`)]
  if (!names.has('host')) lines.push('Host: 127.0.0.1')
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body)
  if (body !== undefined && !names.has('content-length') && !names.has('transfer-encoding'))
    lines.push(`Content-Length: ${payload.length}`)
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload])
}

/**
 * Sends one request on a fresh connection and reads the answer until it is complete (its
 * Content-Length, or a chunked body's last chunk) or the server closes the connection.
 * Resolves undefined when the server closed without answering; rejects after `timeoutMs`.
 */
export function rawExchange(
  port: number,
  request: RawRequest | Buffer,
  timeoutMs = 10_000,
): Promise<RawResponse | undefined> {
  const bytes = Buffer.isBuffer(request) ? request : serialise(request)
  const isHead = !Buffer.isBuffer(request) && request.method.toUpperCase() === 'HEAD'
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer within ${timeoutMs} ms to ${bytes.subarray(0, 200).toString('latin1')}`))
    }, timeoutMs)
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      // Stop reading as soon as the announced body is complete: some answers keep the connection.
      let parsed: RawResponse | undefined
      try {
        parsed = parseResponse(Buffer.concat(chunks), isHead)
      } catch (error) {
        clearTimeout(timer)
        socket.destroy()
        reject(error as Error)
        return
      }
      if (parsed) {
        clearTimeout(timer)
        socket.destroy()
        resolve(parsed)
      }
    })
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(timer)
      const all = Buffer.concat(chunks)
      try {
        resolve(all.length === 0 ? undefined : parseResponse(all, isHead, true))
      } catch (error) {
        reject(error)
      }
    })
    socket.write(bytes)
  })
}

/** Parses one response; undefined while it is incomplete (unless `final`, when what came is taken as is). */
export function parseResponse(data: Buffer, isHead = false, final = false): RawResponse | undefined {
  // Interim answers (100 Continue after Expect: 100-continue) come before the response itself.
  while (/^HTTP\/1\.[01] 1\d\d /.test(data.subarray(0, 13).toString('latin1')) && data.indexOf('\r\n\r\n') >= 0)
    data = data.subarray(data.indexOf('\r\n\r\n') + 4)
  const end = data.indexOf('\r\n\r\n')
  if (end < 0) {
    if (final) throw new Error(`truncated response: ${JSON.stringify(data.toString('latin1').slice(0, 300))}`)
    return undefined
  }
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1])
  if (!Number.isInteger(status)) throw new Error(`not an HTTP response: ${JSON.stringify(statusLine)}`)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const rest = data.subarray(end + 4)
  if (isHead || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) }
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const body = dechunk(rest)
    if (body === undefined && final) throw new Error('chunked response ended before its last chunk')
    return body === undefined ? undefined : { status, headers, body }
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length'])
  if (length === undefined) return final ? { status, headers, body: rest } : undefined
  if (rest.length < length) {
    if (final) throw new Error(`response body shorter than its Content-Length (${rest.length} < ${length})`)
    return undefined
  }
  return { status, headers, body: rest.subarray(0, length) }
}

/** The body of a chunked message; undefined until its last chunk and the blank line after it are in. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at)
    if (lineEnd < 0) return undefined
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1').split(';')[0] ?? '', 16)
    if (!Number.isInteger(size)) throw new Error(`bad chunk size line at byte ${at}`)
    at = lineEnd + 2
    if (size === 0) return data.indexOf('\r\n\r\n', lineEnd) >= 0 ? Buffer.concat(parts) : undefined
    if (data.length < at + size + 2) return undefined
    parts.push(data.subarray(at, at + size))
    at += size + 2
  }
}

/** Opens a connection (from `localAddress`, any of 127.0.0.0/8) and resolves once it is established. */
export function openSocket(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Resolves when the socket is closed, with what it received. */
export function whenClosed(socket: Socket): Promise<Buffer> {
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.on('error', () => undefined)
  return new Promise((resolve) => {
    if (socket.destroyed) resolve(Buffer.alloc(0))
    else socket.once('close', () => resolve(Buffer.concat(chunks)))
  })
}
