// How the server's own process tunes V8's heap: imported first by src/cli.ts, before anything is
// allocated, and never by the library (a test process that starts the sandbox keeps its own settings).
//
// V8 "pretenures" an allocation site when the objects it made survived young-generation
// collections: from then on it allocates them straight in the old generation. Under steady load,
// about eight seconds in, the request path's short-lived objects get that treatment; the old
// generation then fills in a quarter of a second and is mark-compacted over and over, and GET
// /v1/pets falls from about 60,000 to 40,000 requests/s on Node 20 (docs/performance.md, sixth round).
import { setFlagsFromString } from 'node:v8'

setFlagsFromString('--no-allocation-site-pretenuring')
