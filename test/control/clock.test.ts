import t from 'tap'
import { startControlSandbox } from '../support/control.js'

const SUNSET = '2030-12-05T00:00:00.000Z'

t.test('a moved clock makes getPet answer 410 Gone from its sunset date; DELETE returns to real time', async (t) => {
  const { admin, api } = await startControlSandbox(t)
  const before = await api('GET', '/pets/1')
  t.equal(before.status, 200)
  t.equal(before.headers.get('sunset'), 'Thu, 05 Dec 2030 00:00:00 GMT')

  const real = await admin('GET', '/clock')
  t.match(real.body, { namespace: 'default', real: true })
  t.ok(Math.abs(Date.parse(real.body.now) - Date.now()) < 60_000, 'real time')

  const justBefore = await admin('POST', '/clock', { now: '2030-12-04T23:59:50Z' })
  t.match(justBefore.body, { namespace: 'default', real: false, now: /^2030-12-04T23:59:5/ })
  t.equal((await api('GET', '/pets/1')).status, 200, 'still there before the sunset')

  await admin('POST', '/clock', { now: SUNSET })
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

  const back = await admin('DELETE', '/clock')
  t.match(back.body, { real: true })
  t.equal((await api('GET', '/pets/1')).status, 200)
})

t.test('the clock is per namespace, reset puts it back, and bad times are refused', async (t) => {
  const { admin, api } = await startControlSandbox(t)
  await admin('POST', '/clock?namespace=future', { now: '2031-06-01T00:00:00Z' })
  t.equal((await api('GET', '/pets/1', undefined, { 'x-sandbox-namespace': 'future' })).status, 410)
  t.equal((await api('GET', '/pets/1')).status, 200, 'the default namespace keeps real time')
  t.match((await admin('POST', '/reset?namespace=future')).body, { pets: 60 })
  t.match((await admin('GET', '/clock?namespace=future')).body, { real: true }, 'a reset puts the clock back')
  for (const body of [{ now: 'tomorrow' }, { now: '2030-12-05' }, {}, { now: SUNSET, extra: 1 }]) {
    const res = await admin('POST', '/clock', body)
    t.equal(res.status, 400, JSON.stringify(body))
    t.equal(res.body.code, 'invalid_body')
  }
})

t.test('CLOCK starts the sandbox at a given time; a reset returns to it', async (t) => {
  const { admin, api } = await startControlSandbox(t, { CLOCK: '2030-12-06T12:00:00Z' })
  t.equal((await api('GET', '/pets/1')).status, 410)
  await admin('DELETE', '/clock')
  t.equal((await api('GET', '/pets/1')).status, 200)
  await admin('POST', '/reset')
  t.equal((await api('GET', '/pets/1')).status, 410, 'back to the configured clock')
})
