// The operation routes built from the spec: exact paths in their case, one trailing slash,
// path parameters percent-decoded (a malformed escape kept as sent), the methods of each path.
import t from 'tap'
import { OperationRoutes } from '../../src/pipeline/routes.js'
import { loadSpec } from '../../src/contract/load.js'

t.test('operation routes of the embedded spec', async (t) => {
  const spec = await loadSpec()
  const routes = new OperationRoutes(spec.operations, spec.basePath)
  t.strictSame(
    routes.paths.map((p) => [p.template, p.allow]),
    [
      ['/pets', 'GET, POST, HEAD'],
      ['/pets/{petId}', 'GET, HEAD'],
      ['/store/orders', 'GET, HEAD'],
    ],
  )
  const at = (pathname: string) => {
    const match = routes.match(pathname)
    return match && { template: match.at.template, params: Object.fromEntries(match.params) }
  }
  t.strictSame(at('/v1/pets'), { template: '/pets', params: {} })
  t.strictSame(at('/v1/pets/'), { template: '/pets', params: {} })
  t.strictSame(at('/v1/pets/7'), { template: '/pets/{petId}', params: { petId: '7' } })
  t.strictSame(at('/v1/pets/7/'), { template: '/pets/{petId}', params: { petId: '7' } })
  t.strictSame(at('/v1/pets/%37'), { template: '/pets/{petId}', params: { petId: '7' } })
  t.strictSame(
    at('/v1/pets/%E0%A4%A'),
    { template: '/pets/{petId}', params: { petId: '%E0%A4%A' } },
    'a malformed escape is kept',
  )
  t.strictSame(at('/v1/pets/a%2Fb'), { template: '/pets/{petId}', params: { petId: 'a/b' } })
  t.strictSame(at('/v1/store/orders'), { template: '/store/orders', params: {} })
  for (const miss of [
    '/v1/PETS',
    '/V1/pets',
    '/v1/pets//',
    '/v1/pets/7/x',
    '/pets',
    '/v1',
    '/v1/',
    '/v1/petsx',
    '/v1/pets.json',
  ]) {
    t.equal(routes.match(miss), undefined, `${miss} matches no operation`)
  }
  t.equal(routes.match('/v1/pets/7')?.at.byMethod.get('GET')?.operationId, 'getPet')
  t.equal(routes.match('/v1/pets')?.at.byMethod.get('POST')?.operationId, 'createPet')
  t.equal(routes.match('/v1/pets')?.at.byMethod.get('DELETE'), undefined)
})
