// How the server's own process tunes V8's heap, once it serves (src/cli.ts). The library does not:
// a test process that starts the sandbox keeps its own settings.
//
// V8 "pretenures" an allocation site when the objects it made survived young-generation
// collections: from then on it allocates them straight in the old generation. Under steady load
// the request path's short-lived objects get that treatment (on Node 20 about eight seconds in, on
// Node 22 from the start); the old generation then fills with garbage in a quarter of a second and
// is mark-compacted over and over, and GET /v1/pets falls from about 60,000 to 40,000 requests/s.
import { setFlagsFromString } from 'node:v8'

/**
 * Call once the server listens, not before: V8 does not use code it cached under other flags, so
 * Node's own modules compiled after the change are compiled afresh, which cost a start 10 ms.
 */
export function tuneHeapForLoad(): void {
  setFlagsFromString('--no-allocation-site-pretenuring')
}
