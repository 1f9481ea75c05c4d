// What `node --import ./register.mjs service.mjs` loads before the service. The service is an ES
// module: its `import ... from 'node:http'` never passes through require(), which is all the
// instrumentations patch by themselves. OpenTelemetry's loader hook lets them patch what ES
// modules import too; without it node:http stays unpatched, the inbound traceparent and baggage
// are never read, and every call the service makes starts a trace of its own, with no baggage.
import { register } from 'node:module'

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url)
// After the hook, so that the instrumentations it serves are registered with it in place.
await import('./telemetry.mjs')
