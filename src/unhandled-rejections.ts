// The process-wide policy for a rejected promise that no code handles. Every background write
// handles its own failure where it starts; one that escapes anyway is a bug, and Node's default
// (ending the process) would take down every test using the sandbox with it. The command logs it,
// counts it and goes on serving; GET /healthz reports the count. An embedder's process keeps its
// own policy: there the count stays 0.
import type { Logger } from 'pino'

let count = 0

/** The rejections no code handled since the policy was installed. */
export function unhandledRejections(): number {
  return count
}

/** Installs the policy: each unhandled rejection is logged as an error and counted, never fatal. */
export function surviveUnhandledRejections(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    count++
    logger.error(
      { err: reason, unhandledRejections: count },
      'a rejected promise was not handled (counted in GET /healthz); the sandbox goes on serving',
    )
  })
}
