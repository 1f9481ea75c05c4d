// ddmin narrows a failing set to a 1-minimal one, trying each subset once, within its bound.
import t from 'tap'
import { ddmin } from '../../src/repro/ddmin.js'

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i)

t.test('one item that matters among many', async (t) => {
  const found = await ddmin(range(40), async (subset) => subset.includes(17), 100)
  t.same(found.items, [17])
  t.ok(found.complete)
  t.ok(found.runs <= 20, `in ${found.runs} runs`)
})

t.test('two items that matter together', async (t) => {
  const found = await ddmin(range(16), async (subset) => subset.includes(3) && subset.includes(12), 100)
  t.same(found.items, [3, 12])
  t.ok(found.complete)
})

t.test('the bound stops the search with the smallest failing set so far', async (t) => {
  const calls: number[][] = []
  const found = await ddmin(
    range(64),
    async (subset) => {
      calls.push([...subset])
      return subset.includes(40)
    },
    3,
  )
  t.equal(found.runs, 3)
  t.equal(calls.length, 3)
  t.notOk(found.complete)
  t.ok(found.items.includes(40) && found.items.length < 64, `${found.items.length} items left`)
})
