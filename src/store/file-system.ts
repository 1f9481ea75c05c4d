// The file operations the data file is made of, behind one narrow interface: the real
// node:fs/promises by default, and the seam where tests put a file system that fails a chosen call
// (test/store/faulty-file-system.ts). Each method is one system call a disk can refuse, so that a
// test can name the call it fails: "the second fsync", "the rename", "the directory fsync".
import { createReadStream } from 'node:fs'
import { mkdir, open, readFile, rename, statfs, unlink } from 'node:fs/promises'

/** An open file: positional writes, so that an append lands where the last whole record ends. */
export interface OpenFile {
  /** write(2): may write fewer bytes than asked (a short write); see writeAll. */
  write(data: Uint8Array, offset: number, length: number, position: number): Promise<number>
  /** fsync(2): the data and the metadata. */
  sync(): Promise<void>
  /** fdatasync(2): the data and what is needed to read it back (the size). */
  datasync(): Promise<void>
  truncate(length: number): Promise<void>
  close(): Promise<void>
}

export interface FileSystem {
  /** 'w' creates or empties the file; 'r+' opens an existing one for writing. */
  open(path: string, flags: 'w' | 'r+'): Promise<OpenFile>
  readFile(path: string): Promise<Buffer>
  /** The file's bytes, `chunkBytes` at a time: a file of any size, never in one buffer. */
  readChunks(path: string, chunkBytes: number): AsyncIterable<Buffer>
  rename(from: string, to: string): Promise<void>
  /** Removes a file; a missing one is not an error. */
  remove(path: string): Promise<void>
  makeDirectory(path: string): Promise<void>
  /** fsync(2) of a directory: makes a new, renamed or removed name in it durable. */
  syncDirectory(path: string): Promise<void>
  /** The bytes an unprivileged writer may still use on the file system that holds `path`. */
  freeBytes(path: string): Promise<number>
}

/** The real file system. */
export const nodeFileSystem: FileSystem = {
  async open(path, flags) {
    const handle = await open(path, flags)
    return {
      write: async (data, offset, length, position) =>
        (await handle.write(data, offset, length, position)).bytesWritten,
      sync: () => handle.sync(),
      datasync: () => handle.datasync(),
      truncate: (length) => handle.truncate(length),
      close: () => handle.close(),
    }
  },
  readFile: (path) => readFile(path),
  readChunks: (path, chunkBytes) => createReadStream(path, { highWaterMark: chunkBytes }),
  rename,
  // One unlink(2): rm() would lstat first, a second system call on every removal.
  async remove(path) {
    try {
      await unlink(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  },
  makeDirectory: async (path) => void (await mkdir(path, { recursive: true })),
  async syncDirectory(path) {
    const handle = await open(path, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  },
  async freeBytes(path) {
    const stats = await statfs(path)
    return stats.bavail * stats.bsize
  },
}

/**
 * Writes all of `data` at `position`. write(2) may take fewer bytes than asked (a signal, a disk
 * filling up): the rest goes in the next call, and the next call reports why if it cannot.
 */
export async function writeAll(file: OpenFile, data: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < data.length;) {
    const written = await file.write(data, done, data.length - done, position + done)
    // A write that takes nothing and reports no error would loop forever: call it what it is.
    if (written <= 0) throw Object.assign(new Error('write took no bytes'), { code: 'EIO' })
    done += written
  }
}
