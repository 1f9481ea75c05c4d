// One writer per data file: two sandboxes on one DATA_FILE would both acknowledge writes, and a
// restart would keep one side's. A start creates `<DATA_FILE>.lock` exclusively (O_EXCL), naming
// itself, refreshes its mtime as a heartbeat and removes it on stop or exit. A lock whose holder
// is visibly gone (same boot id and pid namespace, pid not running) is taken over at once; one of
// a holder out of sight (another host or container) once its heartbeat is stale.
// (proper-lockfile records no holder, so it could neither name one nor see it gone.)
import { randomUUID } from 'node:crypto'
import { readFileSync, readlinkSync, realpathSync, statSync, unlinkSync } from 'node:fs'
import { mkdir, open, realpath, stat, unlink, utimes } from 'node:fs/promises'
import { hostname } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { DataFileError } from './errors.js'

/** How often the holder refreshes the lock, and how old a lock of a holder out of sight must be to be taken over. */
export const LOCK_TIMING = { heartbeatMs: 2_000, staleMs: 10_000 }

interface Holder {
  /** The data file, as the holder resolved it: a lock naming another file is a copy (a directory copied whole). */
  readonly file: string
  readonly host: string
  readonly pid: number
  /** This start's own id: tells a start from an earlier one with the same pid. */
  readonly start: string
  readonly since: string
  /** The machine's boot id and the process's pid namespace (Linux): where `pid` means this process. */
  readonly boot: string | null
  readonly pidSpace: string | null
}

const HERE = {
  host: hostname(),
  boot: readOrNull(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
  pidSpace: readOrNull(() => readlinkSync('/proc/self/ns/pid')),
}

/** The locks this process holds, by lock file: removed on exit if still held. */
const held = new Map<string, DataFileLock>()
let removedOnExit = false

export class DataFileLock {
  readonly file: string
  /** The id of the start that holds it. */
  readonly start: string
  /** The lock file's inode: the lock is still ours while its path names it. */
  readonly #inode: number
  readonly #heartbeat: NodeJS.Timeout
  #released = false

  private constructor(file: string, holder: Holder, inode: number, onLost: (message: string) => void) {
    this.file = file
    this.start = holder.start
    this.#inode = inode
    this.#heartbeat = setInterval(() => void this.#beat(onLost), LOCK_TIMING.heartbeatMs).unref()
  }

  /**
   * Takes the lock of `dataFile`, taking over one whose holder is gone; a DataFileError naming the
   * holder when a live one has it. `onLost` is told if the lock is later found taken by another start.
   */
  static async acquire(dataFile: string, onLost: (message: string) => void = () => undefined): Promise<DataFileLock> {
    const cannot = (error: Error): DataFileError =>
      new DataFileError(
        dataFile,
        `cannot be written: its lock cannot be made (${error.message})${permissionHint(dataFile, error)}`,
      )
    const dir = await mkdir(dirname(dataFile), { recursive: true })
      .then(() => realpath(dirname(dataFile)))
      .catch((error: Error) => {
        throw cannot(error)
      })
    const holder: Holder = {
      file: join(dir, basename(dataFile)),
      host: HERE.host,
      pid: process.pid,
      start: randomUUID(),
      since: new Date().toISOString(),
      boot: HERE.boot,
      pidSpace: HERE.pidSpace,
    }
    const file = `${holder.file}.lock`
    // Bounded: a lock taken over is created anew, and another start may get there first.
    for (let attempt = 1; ; attempt++) {
      const inode = await create(file, holder).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return undefined
        throw cannot(error)
      })
      if (inode !== undefined) {
        const lock = new DataFileLock(file, holder, inode, onLost)
        held.set(file, lock)
        if (!removedOnExit) process.once('exit', () => held.forEach((lock) => lock.#releaseNow()))
        removedOnExit = true
        return lock
      }
      const found = await readLock(file)
      if (found === undefined) continue // released meanwhile
      const refusal = refusalOf(found, holder)
      if (refusal !== undefined || attempt >= 3)
        throw new DataFileError(dataFile, refusal ?? 'is being taken over by another start at this moment')
      // Only the lock judged, not one another start made meanwhile.
      if ((await stat(file).catch(() => undefined))?.ino === found.inode) await unlink(file).catch(() => undefined)
    }
  }

  /** Removes the lock if it is still ours; for a stop, once the last write is done. */
  async release(): Promise<void> {
    if (this.#released) return
    this.#released = true
    clearInterval(this.#heartbeat)
    held.delete(this.file)
    if ((await stat(this.file).catch(() => undefined))?.ino === this.#inode)
      await unlink(this.file).catch(() => undefined)
  }

  /**
   * Lets go of the lock of `dataFile` as a kill -9 would: it stays on disk, naming a start that is
   * gone, and the next start takes it over. For tests that stop a sandbox as a kill leaves it,
   * within their own process.
   */
  static abandon(dataFile: string): void {
    const lock = held.get(`${join(realpathSync(dirname(dataFile)), basename(dataFile))}.lock`)
    if (lock === undefined) return
    lock.#released = true
    clearInterval(lock.#heartbeat)
    held.delete(lock.file)
  }

  /** On exit, whatever the path to it (a kill -9 leaves the lock to be taken over). */
  #releaseNow(): void {
    try {
      if (statSync(this.file).ino === this.#inode) unlinkSync(this.file)
    } catch {
      // Gone already, or the disk refuses: the next start takes it over.
    }
  }

  async #beat(onLost: (message: string) => void): Promise<void> {
    const now = new Date()
    const found = await stat(this.file).catch(() => undefined)
    if (this.#released) return
    if (found?.ino !== this.#inode) {
      clearInterval(this.#heartbeat)
      const taken = found && (await readLock(this.file))?.holder
      onLost(
        `lock ${this.file} was ${taken ? `taken over by ${describe(taken)}` : 'removed'}: this sandbox no longer holds its data file; stop it`,
      )
      return
    }
    // A failing disk may refuse this too: the next beat tries again.
    await utimes(this.file, now, now).catch(() => undefined)
  }
}

/** Creates the lock file exclusively with `holder` in it; resolves with its inode. */
async function create(file: string, holder: Holder): Promise<number> {
  const handle = await open(file, 'wx')
  try {
    await handle.writeFile(`${JSON.stringify(holder)}\n`)
    return (await handle.stat()).ino
  } catch (error) {
    await unlink(file).catch(() => undefined)
    throw error
  } finally {
    await handle.close()
  }
}

interface FoundLock {
  /** Undefined when the file names no holder (a start killed between creating and writing it). */
  readonly holder: Holder | undefined
  readonly inode: number
  readonly ageMs: number
}

async function readLock(file: string): Promise<FoundLock | undefined> {
  let handle
  try {
    handle = await open(file, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    const { ino, mtimeMs } = await handle.stat()
    const text = await handle.readFile('utf8')
    const value = readOrNull(() => JSON.parse(text) as Partial<Holder> | null)
    const named = typeof value?.host === 'string' && typeof value.pid === 'number' && typeof value.start === 'string'
    return { holder: named ? (value as Holder) : undefined, inode: ino, ageMs: Date.now() - mtimeMs }
  } finally {
    await handle.close()
  }
}

/** Why a start may not take over `found` (the rest of "Data file X ..."); undefined when it may. */
function refusalOf({ holder, ageMs }: FoundLock, ours: Holder): string | undefined {
  const stale = ageMs > LOCK_TIMING.staleMs
  const inUse = (by: string, hint: string): string =>
    `is in use by ${by} (lock ${ours.file}.lock): stop it or use another DATA_FILE${hint}`
  const staleHint = `; if it is gone, a start takes over once its lock is ${LOCK_TIMING.staleMs / 1000} s old (now ${Math.round(ageMs / 1000)} s)`
  if (holder === undefined) return stale ? undefined : inUse('a sandbox that is starting', staleHint)
  const sameSpace =
    HERE.boot !== null ? holder.boot === HERE.boot && holder.pidSpace === HERE.pidSpace : holder.host === HERE.host
  if (!sameSpace) return stale ? undefined : inUse(describe(holder), staleHint)
  // In sight: the lock of another file (a copy), or of a process that is gone, is taken over at once.
  if (holder.file !== ours.file) return undefined
  if (holder.pid === process.pid)
    return held.get(`${ours.file}.lock`)?.start === holder.start ? inUse('this process', '') : undefined
  return isRunning(holder.pid) ? inUse(describe(holder), '') : undefined
}

function describe(holder: Holder): string {
  return `another sandbox, host ${holder.host} pid ${holder.pid} since ${holder.since}`
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: running, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  // A process killed but not yet reaped by its parent (a zombie) still answers, and holds nothing.
  const stat = readOrNull(() => readFileSync(`/proc/${pid}/stat`, 'utf8')) ?? ''
  return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z'
}

function readOrNull<T>(read: () => T): T | null {
  try {
    return read()
  } catch {
    return null
  }
}

/** What to do when the folder refuses this process: whose it must be, or no file at all. */
function permissionHint(dataFile: string, error: NodeJS.ErrnoException): string {
  if (!['EACCES', 'EPERM', 'EROFS'].includes(error.code ?? '')) return ''
  const user = process.getuid === undefined ? 'this process' : `user id ${process.getuid()}`
  return `: the sandbox runs as ${user} and may not write in ${dirname(dataFile)}; make the folder writable for it (in a container, a volume owned by that user id, or docker run --user), or set DATA_FILE=:memory: to keep the pets in memory only`
}
