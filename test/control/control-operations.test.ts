// Every operation of the control API's spec has one handler: the core's rooms bring theirs and
// each capability its `controlOperations`. A spec operation left without one, or given two, fails
// the control API's build (after the first answer, or at the first control call) with one line
// that names it; here the sandbox's rooms are checked before any start.
import t from 'tap'
import type { Capability } from '../../src/capability.js'
import { loadSpecFile } from '../../src/contract/load.js'
import { controlHandlersOf, createControlApi, type ControlApiOptions } from '../../src/control/control-api.js'
import { ok } from '../../src/control/control-operation.js'
import { fidelity } from '../../src/fidelity/capability.js'
import { pact } from '../../src/pact/capability.js'
import { CONTROL_SPEC_FILE } from '../../src/paths.js'
import { tls } from '../../src/tls/capability.js'
import { verification } from '../../src/verification/capability.js'

const controlSpec = await loadSpecFile(CONTROL_SPEC_FILE)
const off = { tls: undefined, clientCa: undefined, caOut: undefined }
const capabilities: Capability[] = [await tls(off), fidelity(undefined), pact(), verification(undefined)]

t.test('the core and the capabilities, switched off or not, handle every operation once', async (t) => {
  const handlers = controlHandlersOf(controlSpec, capabilities)
  t.same(Object.keys(handlers).sort(), controlSpec.operations.map((op) => op.operationId).sort())
})

t.test('an operation no room handles is named', async (t) => {
  t.throws(
    () =>
      controlHandlersOf(
        controlSpec,
        capabilities.filter(({ name }) => name !== 'pact'),
      ),
    {
      message: 'control API operation exportPact has no handler',
    },
  )
})

t.test('an operation two rooms handle is named with both', async (t) => {
  const twice: Capability = { name: 'clock-again', controlOperations: { getClock: () => ok({}) } }
  t.throws(() => controlHandlersOf(controlSpec, [...capabilities, twice]), {
    message: 'control API operation getClock has two handlers, in control and clock-again',
  })
  const both = [...capabilities, { ...capabilities[2], name: 'pact-again' } as Capability]
  t.throws(() => controlHandlersOf(controlSpec, both), {
    message: 'control API operation exportPact has two handlers, in pact and pact-again',
  })
})

t.test('a handler for an operation the spec does not have is named', async (t) => {
  const stray: Capability = { name: 'stray', controlOperations: { ['getNothing' as 'getClock']: () => ok({}) } }
  t.throws(() => controlHandlersOf(controlSpec, [...capabilities, stray]), {
    message: "control API operation getNothing (in stray) is not in /__admin's spec",
  })
})

t.test('the control API checks its handlers when it is built, after the start, and names the gap', async (t) => {
  const twice: Capability = { name: 'clock-again', controlOperations: { getClock: () => ok({}) } }
  // The build stops at the check, before it reads any other option.
  const options = { controlSpec: async () => controlSpec } as unknown as ControlApiOptions
  const controlApi = createControlApi(options, [...capabilities, twice], () => {})
  await t.rejects(controlApi.warm(), {
    message: 'control API operation getClock has two handlers, in control and clock-again',
  })
})
