import t from 'tap'
import { ns, startControlSandbox } from '../support/control.js'
import { waitFor } from '../support/sandbox.js'

const SUNSET = '2030-12-05T00:00:00.000Z'

t.test('a moved clock makes getPet answer 410 Gone from its sunset date; DELETE returns to real time', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const before = await api('GET', '/pets/1')
  t.equal(before.status, 200)
  t.equal(before.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT')

  const real = await control('GET', '/clock')
  t.match(real.body, { namespace: 'default', real: true })
  t.ok(Math.abs(Date.parse(real.body.now) - Date.now()) < 60_000, 'real time')

  const justBefore = await control('POST', '/clock', { now: '2030-12-04T23:59:50Z' })
  t.match(justBefore.body, { namespace: 'default', real: false, now: /^2030-12-04T23:59:5/ })
  t.equal((await api('GET', '/pets/1')).status, 200, 'still there before the sunset')

  await control('POST', '/clock', { now: SUNSET })
  const gone = await api('GET', '/pets/1')
  t.equal(gone.status, 410)
  t.match(gone.body, {
    code: 'gone',
    status: 410,
    message: /removed on Thu, 05 Dec 2030 00:00:00 GMT; use \/v1\/pets instead/,
  })
  t.equal(gone.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT', 'the deprecation headers stay')
  t.ok(gone.headers.get('deprecation'))
  t.equal((await api('GET', '/pets/999999')).status, 410, 'whatever the id')
  t.equal((await api('GET', '/pets')).status, 200, 'other operations are not removed')

  const back = await control('DELETE', '/clock')
  t.match(back.body, { real: true })
  t.equal((await api('GET', '/pets/1')).status, 200)
})

t.test('the clock is per namespace, reset puts it back, and bad times are refused', async (t) => {
  const { control, api } = await startControlSandbox(t)
  await control('POST', '/clock?namespace=future', { now: '2031-06-01T00:00:00Z' })
  t.equal((await api('GET', '/pets/1', undefined, ns('future'))).status, 410)
  t.equal((await api('GET', '/pets/1')).status, 200, 'the default namespace keeps real time')
  t.match((await control('POST', '/reset?namespace=future')).body, { pets: 60 })
  t.match((await control('GET', '/clock?namespace=future')).body, { real: true }, 'a reset puts the clock back')

  // Not RFC 3339, none, more than `now`; a leap second; outside years 0000 to 9999.
  for (const [now, message] of [
    ['2030-12-05', /body\.now must match format date-time/],
    [undefined, /body\.now is required/],
    ['2030-12-31T23:59:60Z', /^Invalid request body: body\.now is a leap second/],
    ['9999-12-31T23:59:59-01:00', /body\.now must fall in 0000-01-01T00:00:00Z to 9999-12-31T23:59:59\.999Z/],
  ] as const)
    t.match(
      await control('POST', '/clock', { now }),
      { status: 400, body: { code: 'invalid_body', message } },
      String(now),
    )
  t.match(await control('POST', '/clock', { now: SUNSET, extra: 1 }), { status: 400 }, 'more than `now`')
  t.match(await control('GET', '/requests?since=2030-12-31T23:59:60Z'), {
    status: 400,
    body: { code: 'invalid_parameter', message: /^Invalid query parameter: query\.since is a leap second/ },
  })
  t.match((await control('GET', '/clock')).body, { real: true }, 'the clock did not move')
  t.equal((await control('POST', '/snapshots', { name: 'after-refusals' })).status, 201, 'and nothing broke')
})

t.test('CLOCK starts the sandbox at a given time; a reset returns to it', async (t) => {
  const { control, api } = await startControlSandbox(t, { CLOCK: '2030-12-06T12:00:00Z' })
  t.equal((await api('GET', '/pets/1')).status, 410)
  await control('DELETE', '/clock')
  t.equal((await api('GET', '/pets/1')).status, 200)
  await control('POST', '/reset')
  t.equal((await api('GET', '/pets/1')).status, 410, 'back to the configured clock')
})

t.test('the clock holds to years 0000 to 9999 and always answers RFC 3339', async (t) => {
  const { control, api } = await startControlSandbox(t)
  const first = await control('POST', '/clock', { now: '0000-01-01T00:00:00Z' })
  t.match(first.body, { now: /^0000-01-01T00:00:0/ }, 'the first instant RFC 3339 writes')
  t.equal((await api('GET', '/pets/1')).status, 200)

  // The last millisecond: the clock stops there instead of running on into year 10000.
  const setAt = Date.now()
  const last = await control('POST', '/clock', { now: '9999-12-31T23:59:59.999Z' })
  t.match(last.body, { now: '9999-12-31T23:59:59.999Z', real: false })
  await waitFor(() => Date.now() - setAt > 1_000, { what: 'a second to pass' })
  t.equal((await control('GET', '/clock')).body.now, '9999-12-31T23:59:59.999Z')
  t.equal((await api('GET', '/pets/1')).status, 410, 'getPet after its sunset')
  const snapshot = await control('POST', '/snapshots', { name: 'end-of-time' })
  t.match(snapshot, { status: 201, body: { clock: '9999-12-31T23:59:59.999Z' } })
  t.match((await control('POST', '/reset', { snapshot: 'end-of-time' })).status, 200)
  t.equal((await control('GET', '/clock')).body.now, '9999-12-31T23:59:59.999Z')
})
