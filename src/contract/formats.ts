// The formats the spec uses that ajv does not know, shared by the validators compiled at start
// and those compiled at build time (compiled.ts).
import type { Format } from 'ajv'
import { createRequire } from 'node:module'

// Through require: an ES import of this CommonJS file makes Node scan it for its exports first,
// which took as long as the rest of the spec's loading at start.
const require = createRequire(import.meta.url)
const { fullFormats } = require('ajv-formats/dist/formats.js') as typeof import('ajv-formats/dist/formats.js')

// JSON numbers lose precision beyond 2^53-1, so the sandbox refuses such integers rather than
// round them silently: int64 here means a safe integer.
export const FORMATS: Record<string, Format> = {
  int64: { type: 'number', validate: (n: number) => Number.isSafeInteger(n) },
  int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
  // RFC 3339 date-times (the control API's `since` and `now`).
  'date-time': fullFormats['date-time'],
}

/** RFC 3339's date-time as `format: date-time` checks it, for the date-times read outside a spec (CLOCK). */
export const isDateTime = (fullFormats['date-time'] as { validate: (text: string) => boolean }).validate
