// Number handling, end to end: JSON numbers are doubles, so integers beyond 2^53-1 cannot be kept
// exactly. The sandbox refuses them (and literals that would round onto an integer) with a 400
// that names the field; it never rounds silently. The query and the path: validation.test.ts.
import t from 'tap'
import { createLogger } from '../../src/logger.js'
import { startSandbox } from '../../src/sandbox.js'
import { AUTH, JSON_HEADERS, startTestSandbox } from '../support/sandbox.js'

const MAX = '9007199254740991' // 2^53 - 1

t.test('body categoryId', async (t) => {
  const sandbox = await startTestSandbox(t)
  const post = async (categoryIdLiteral: string) => {
    const res = await fetch(`${sandbox.baseUrl}/pets`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: `{"name":"Big","categoryId":${categoryIdLiteral}}`,
    })
    return { status: res.status, text: await res.text() }
  }

  for (const literal of [MAX, `-${MAX}`]) {
    const created = await post(literal)
    t.equal(created.status, 201, `${literal} is kept`)
    t.match(created.text, `"categoryId":${literal}`, 'exactly, as text')
    const id = (JSON.parse(created.text) as { id: number }).id
    t.match(await (await fetch(`${sandbox.baseUrl}/pets/${id}`, { headers: AUTH })).text(), `"categoryId":${literal}`)
  }

  for (const literal of ['9007199254740992', '-9007199254740992', '9223372036854775808', '1e300']) {
    const refused = await post(literal)
    t.equal(refused.status, 400, `${literal} → 400`)
    t.match(JSON.parse(refused.text), {
      code: 'invalid_body',
      status: 400,
      message: /body\.categoryId must be an integer from -9007199254740991 to 9007199254740991/,
    })
  }

  // Found by the fuzzer: these parse to safe integers, so they passed validation and were rounded.
  for (const [literal, wouldBe] of [
    ['9007199254740991.4', '9007199254740991'],
    ['1.0000000000000001', '1'],
    ['1e-400', '0'],
    ['-2.00000000000000001', '-2'],
  ]) {
    const refused = await post(literal ?? '')
    t.equal(refused.status, 400, `${literal} → 400, not rounded to ${wouldBe}`)
    t.match(JSON.parse(refused.text), {
      code: 'invalid_body',
      message: new RegExp(
        `body\\.categoryId is ${literal?.replace(/\./g, '\\.')}, which JSON numbers cannot carry exactly \\(it would become ${wouldBe}\\)`,
      ),
    })
  }
  // Exact ways of writing a whole number are accepted as that number.
  for (const [literal, value] of [
    ['1e2', 100],
    ['12.000', 12],
    ['0.5e1', 5],
  ]) {
    const created = await post(String(literal))
    t.equal(created.status, 201, `${literal} is exactly ${value}`)
    t.equal((JSON.parse(created.text) as { categoryId: number }).categoryId, value)
  }

  // What was accepted is on disk exactly: a restart serves the same digits.
  await sandbox.close()
  const restarted = await startSandbox(sandbox.config, createLogger('silent'))
  t.teardown(() => restarted.close())
  const all = await (await fetch(`${restarted.baseUrl}/pets?limit=100`, { headers: AUTH })).text()
  t.match(all, `"categoryId":${MAX}`)
  t.match(all, `"categoryId":-${MAX}`)
})
