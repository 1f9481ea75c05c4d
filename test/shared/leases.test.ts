// The leases' epochs against a real PostgreSQL, through a proxy that can delay a taking on its way.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../src/shared/database.js'
import { Leases } from '../../src/shared/leases.js'
import { startCuttingProxy } from '../support/cutting-proxy.js'
import { postgresSkip, startPostgres } from '../support/postgres.js'

t.test(
  'a commit given up on while a taking of its lease flies: the taking that lands after raises the epoch',
  { skip: postgresSkip(t) },
  async (t) => {
    const db = await startPostgres(t)
    const proxy = await startCuttingProxy(t, db.port)
    const url = new URL(db.url)
    url.port = String(proxy.port)
    const database = await openDatabase(url.href, pino({ level: 'silent' }))
    t.teardown(() => database.close())
    const leases = new Leases(database)
    t.teardown(() => leases.release())
    const first = await leases.take('ns')
    if (!('lease' in first)) throw new Error('the first taking found the lease elsewhere')
    // The taking is under way when a commit of the namespace turns out of unknown outcome: the
    // epoch it brings back is the one that commit may still land under.
    const taking = proxy.delay('INSERT INTO leases')
    const flying = leases.take('ns')
    await taking.came
    leases.anew('ns')
    taking.pass()
    const second = await flying
    if (!('lease' in second)) throw new Error('the second taking found the lease elsewhere')
    t.ok(
      BigInt(second.lease.epoch) > BigInt(first.lease.epoch),
      `the lease taken is at a new epoch (${second.lease.epoch} after ${first.lease.epoch})`,
    )
    t.equal(leases.valid('ns')?.epoch, second.lease.epoch, 'and that epoch is the one its writes are fenced by')
  },
)
