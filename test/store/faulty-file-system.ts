// A FileSystem over the REAL file system that fails chosen calls: the store's own code runs on a
// real temp directory, and only the call a test names (the third append log fsync, the rename of a
// snapshot) answers with the error a failing disk would give. Not a mock: every call that is not
// failed is the real one. (libfiu cannot do this for write(): failing every write() would also
// break the wakeup fds of libuv, Node's own event loop.)
import { basename } from 'node:path'
import { nodeFileSystem, type FileSystem, type OpenFile } from '../../src/store/file-system.js'

/** The calls a fault can target: one per system call of the FileSystem interface. */
export type Call = 'open' | 'write' | 'fsync' | 'truncate' | 'close' | 'rename' | 'remove' | 'syncDirectory' | 'read'

/** What the failing call does: an errno, a short write (part of the bytes, and no error), or a torn one (part, then ENOSPC). */
export type Failure = 'EIO' | 'ENOSPC' | 'EDQUOT' | 'EROFS' | 'short' | 'torn'

/** The file a call is about, as the store names its files. */
export type Target = 'append log' | 'temp file' | 'data file' | 'directory'

export interface Fault {
  readonly call: Call
  readonly target: Target
  readonly failure: Failure
  /** The first matching call that fails: 1 for the next one. */
  readonly nth: number
  /** Whether every matching call after it fails too, until clear() (a disk that stays down). */
  readonly persistent: boolean
}

const ERRNO: Record<Exclude<Failure, 'short'>, { errno: number; text: string }> = {
  EIO: { errno: -5, text: 'i/o error' },
  ENOSPC: { errno: -28, text: 'no space left on device' },
  EDQUOT: { errno: -122, text: 'disk quota exceeded' },
  EROFS: { errno: -30, text: 'read-only file system' },
  torn: { errno: -28, text: 'no space left on device' },
}

export function targetOf(path: string, dataFile: string): Target {
  if (path === dataFile) return 'data file'
  if (path === `${dataFile}.journal`) return 'append log'
  if (basename(path) === `.${basename(dataFile)}.tmp`) return 'temp file'
  return 'directory'
}

/** An error as node:fs reports it: code, errno, syscall and path. */
export function fsError(failure: Exclude<Failure, 'short'>, syscall: string, path: string): NodeJS.ErrnoException {
  const code = failure === 'torn' ? 'ENOSPC' : failure
  const { errno, text } = ERRNO[failure]
  return Object.assign(new Error(`${code}: ${text} (injected), ${syscall} '${path}'`), { code, errno, syscall, path })
}

/** Throws the error of a failure that fails the call whole; a short or torn one is the write's own business. */
function throwErrno(failure: Failure | undefined, syscall: string, path: string): void {
  if (failure !== undefined && failure !== 'short' && failure !== 'torn') throw fsError(failure, syscall, path)
}

export class FaultyFileSystem implements FileSystem {
  readonly #real: FileSystem
  readonly #dataFile: string
  #faults: Array<{ readonly fault: Fault; seen: number; failed: number }> = []
  /** When the first call since the faults were armed failed (performance.now()), if one has. */
  firstFailedAt: number | undefined
  /** Every call made, as "call target" (e.g. "fsync append log"), for tests that check the order. */
  readonly log: string[] = []
  /** When set, what freeBytes reports: a disk that is nearly full, whatever the real one says. */
  freeBytesOverride: number | undefined

  constructor(dataFile: string, real: FileSystem = nodeFileSystem) {
    this.#dataFile = dataFile
    this.#real = real
  }

  /** Fails matching calls from now on, as each fault says (replacing the faults armed before). */
  arm(...faults: Fault[]): void {
    this.#faults = faults.map((fault) => ({ fault, seen: 0, failed: 0 }))
    this.firstFailedAt = undefined
  }

  /** The disk is back: every call is the real one again. */
  clear(): void {
    this.#faults = []
  }

  /** How many calls the faults armed last have failed (those on `call` only, when given). */
  failedSinceArmed(call?: Call): number {
    return this.#faults.reduce(
      (sum, { fault, failed }) => sum + (call === undefined || fault.call === call ? failed : 0),
      0,
    )
  }

  /** The failure this call gets, if any (and counts it). */
  #failureFor(call: Call, path: string): Failure | undefined {
    const target = targetOf(path, this.#dataFile)
    this.log.push(`${call} ${target}`)
    for (const armed of this.#faults) {
      const { fault } = armed
      if (fault.call !== call || fault.target !== target) continue
      armed.seen++
      if (armed.seen < fault.nth || (!fault.persistent && armed.seen > fault.nth)) continue
      armed.failed++
      this.firstFailedAt ??= performance.now()
      return fault.failure
    }
    return undefined
  }

  /** Runs `real` unless this call is to fail. */
  async #call<V>(call: Call, path: string, real: () => Promise<V>): Promise<V> {
    throwErrno(this.#failureFor(call, path), call, path)
    return real()
  }

  async open(path: string, flags: 'w' | 'r+'): Promise<OpenFile> {
    const file = await this.#call('open', path, () => this.#real.open(path, flags))
    return new FaultyFile(file, path, (call) => this.#failureFor(call, path))
  }
  readFile(path: string): Promise<Buffer> {
    return this.#call('read', path, () => this.#real.readFile(path))
  }
  /** A read fault fails the open of the file, as the first read of a stream reports it. */
  readChunks(path: string, chunkBytes: number): AsyncIterable<Buffer> {
    const failure = (): Failure | undefined => this.#failureFor('read', path)
    const real = this.#real
    return (async function* () {
      throwErrno(failure(), 'open', path)
      yield* real.readChunks(path, chunkBytes)
    })()
  }
  rename(from: string, to: string): Promise<void> {
    return this.#call('rename', from, () => this.#real.rename(from, to))
  }
  remove(path: string): Promise<void> {
    return this.#call('remove', path, () => this.#real.remove(path))
  }
  makeDirectory(path: string): Promise<void> {
    return this.#real.makeDirectory(path)
  }
  syncDirectory(path: string): Promise<void> {
    return this.#call('syncDirectory', path, () => this.#real.syncDirectory(path))
  }
  async freeBytes(path: string): Promise<number> {
    return this.freeBytesOverride ?? this.#real.freeBytes(path)
  }
}

class FaultyFile implements OpenFile {
  readonly #real: OpenFile
  readonly #path: string
  readonly #failureFor: (call: Call) => Failure | undefined

  constructor(real: OpenFile, path: string, failureFor: (call: Call) => Failure | undefined) {
    this.#real = real
    this.#path = path
    this.#failureFor = failureFor
  }

  async write(data: Uint8Array, offset: number, length: number, position: number): Promise<number> {
    const failure = this.#failureFor('write')
    if (failure === undefined) return this.#real.write(data, offset, length, position)
    if (failure !== 'short' && failure !== 'torn') throw fsError(failure, 'write', this.#path)
    // Part of the bytes really reach the file, as when a disk fills up in the middle of a write.
    const part = Math.max(1, Math.floor(length / 2))
    const written = await this.#real.write(data, offset, part, position)
    if (failure === 'torn') throw fsError('torn', 'write', this.#path)
    return written
  }
  sync(): Promise<void> {
    return this.#fail('fsync', () => this.#real.sync())
  }
  datasync(): Promise<void> {
    return this.#fail('fsync', () => this.#real.datasync())
  }
  truncate(length: number): Promise<void> {
    return this.#fail('truncate', () => this.#real.truncate(length))
  }
  async close(): Promise<void> {
    // A close that fails still releases the descriptor (as close(2) does): only the answer is an error.
    const failure = this.#failureFor('close')
    await this.#real.close()
    throwErrno(failure, 'close', this.#path)
  }

  async #fail(call: Call, real: () => Promise<void>): Promise<void> {
    throwErrno(this.#failureFor(call), call, this.#path)
    return real()
  }
}
