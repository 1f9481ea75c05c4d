// The OpenTelemetry SDK of the service: a context manager that carries the inbound request's
// context across awaits, the W3C trace-context and baggage propagators that read traceparent and
// baggage in and write them out, and the instrumentations of node:http (the server) and undici
// (fetch, the calls to the Animal Store). No exporter: what matters here is what travels on.
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core'
import { registerInstrumentations } from '@opentelemetry/instrumentation'
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http'
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'

new NodeTracerProvider().register({
  propagator: new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  }),
})
registerInstrumentations({ instrumentations: [new HttpInstrumentation(), new UndiciInstrumentation()] })
