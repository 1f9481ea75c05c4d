// The control API is built after the sandbox's first answer, or at its first call (src/control/
// control-api.ts): calls that come before it is built wait for it, and are answered as any later one.
import t from 'tap'
import { startControlSandbox } from '../support/control.js'

t.test('the control calls a sandbox gets before any other request are answered as later ones are', async (t) => {
  const { control, api } = await startControlSandbox(t)
  // Nothing has been answered yet: these are the sandbox's first requests, all on their way at once.
  const [added, refused, missing, unauthorized] = await Promise.all([
    control('POST', '/faults', { operationId: 'listPets', status: 503, times: 1 }),
    control('POST', '/faults', { operationId: 'listPets', status: 'soon' }),
    control('GET', '/nothing-here'),
    control('GET', '/clock', undefined, {}),
  ])
  t.match(added, { status: 201, body: { operationId: 'listPets', status: 503, times: 1 } })
  t.match(refused, { status: 400, body: { code: 'invalid_body', status: 400 } })
  t.match(missing, { status: 404, body: { code: 'not_found', message: 'No resource at GET /__admin/nothing-here' } })
  t.match(unauthorized, { status: 401, body: { code: 'unauthorized', status: 401 } })
  t.equal((await api('GET', '/pets')).status, 503, 'the fault the first call armed fires')
  t.equal((await api('GET', '/pets')).status, 200, 'once')
})
