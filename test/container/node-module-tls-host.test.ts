// The certificate of withTls() names the host Testcontainers reaches the sandbox on, whichever it
// is: here this machine's name, which the certificate has not otherwise (a container's name is its
// own). Testcontainers reads the host once per process: this file is a process of its own.
import { lookup } from 'node:dns/promises'
import { hostname } from 'node:os'
import t from 'tap'
import { AnimalStoreContainer } from '../../modules/node/src/index.js'
import { IMAGE, dockerSkipReason, ensureImage } from '../support/docker.js'

t.setTimeout(5 * 60_000)
const host = hostname()
const skip =
  (await dockerSkipReason(t)) ??
  (await lookup(host).then(
    () => false as const,
    (error: Error) => `this machine's name ${host} does not resolve: ${error.message}`,
  ))
process.env['TESTCONTAINERS_HOST_OVERRIDE'] = host

t.test('withTls(): the certificate names the host Testcontainers reaches the container on', { skip }, async (t) => {
  await ensureImage()
  // The wait for /healthz verifies the certificate for that host: start() resolves only if it does.
  const sandbox = await new AnimalStoreContainer(IMAGE).withInMemory().withTls().start()
  t.teardown(() => sandbox.stop({ remove: true, removeVolumes: true }))
  t.match(sandbox.getBaseUrl(), new RegExp(`^https://${host}:\\d+/v1$`))
  t.match(
    (await sandbox.controlClient().api.GET('/clock')).data,
    { real: true },
    'the control client verifies it there too',
  )
})
