// The bounds of a namespace's Idempotency-Keys: decided from what is stored (ids, times), so that
// a restart or another replica, adding the same keys in id order, finds the same ones.
import t from 'tap'
import { IdempotencyKeys, KEY_TTL_MS, MAX_KEYS, requestHash } from '../../src/store/idempotency-keys.js'

const entry = (id: number, key = `k${id}`, at = 0) => ({ key, hash: 'h', id, at })

t.test('a key is found until KEY_TTL_MS after its create, by the clock given', async (t) => {
  const keys = new IdempotencyKeys()
  keys.add(entry(1, 'a', 1_000))
  t.equal(keys.find('a', 1_000 + KEY_TTL_MS - 1)?.id, 1, 'just before the end')
  t.equal(keys.find('a', 1_000 + KEY_TTL_MS), undefined, 'not from its end on')
  t.equal(keys.find('a', 0)?.id, 1, 'a clock moved back still finds it')
})

t.test('a namespace keeps the MAX_KEYS latest; a key used again names the newer pet', async (t) => {
  const keys = new IdempotencyKeys()
  for (let id = 1; id <= MAX_KEYS + 1; id++) keys.add(entry(id))
  t.equal(keys.size, MAX_KEYS)
  t.equal(keys.find('k1', 0), undefined, 'the oldest is forgotten')
  t.equal(keys.ofPet(1), undefined)
  t.equal(keys.find('k2', 0)?.id, 2)
  keys.add(entry(MAX_KEYS + 2, 'k2', KEY_TTL_MS))
  t.equal(keys.find('k2', KEY_TTL_MS)?.id, MAX_KEYS + 2, 'after it expired, k2 names the new create')
  t.equal(keys.ofPet(2), undefined, 'and no longer the old pet')
  t.same(IdempotencyKeys.from(JSON.parse(JSON.stringify(keys))).toJSON(), keys.toJSON(), 'read back as written')
})

t.test('what is not a key is refused as it is read back', async (t) => {
  t.throws(() => IdempotencyKeys.from({}), /not an array/)
  t.throws(() => IdempotencyKeys.from([{ key: 'a', hash: 'h', id: '1', at: 0 }]), /invalid key at index 0/)
  t.equal(IdempotencyKeys.from(undefined).size, 0)
})

t.test('the request hash is of the fields a create keeps', async (t) => {
  const hash = requestHash({ name: 'Rex', categoryId: 1 })
  t.equal(requestHash({ name: 'Rex', categoryId: 1, id: 9, colour: 'red' } as never), hash, 'unknown fields ignored')
  t.not(requestHash({ name: 'Rex', categoryId: 1, status: 'available' }), hash, 'a status sent is not one left out')
  t.not(requestHash({ name: 'Rex', categoryId: 2 }), hash)
})
