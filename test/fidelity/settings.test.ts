// The upstream's settings: a bad one stops the start with one line that names it.
import t from 'tap'
import { ConfigError, loadConfig } from '../../src/config.js'

const refused = (env: Record<string, string>, argv: string[] = []): string => {
  try {
    loadConfig(argv, env)
  } catch (error) {
    if (error instanceof ConfigError) return error.message
    throw error
  }
  throw new Error('the settings were accepted')
}

t.test('a bad upstream setting names itself', async (t) => {
  t.match(refused({ UPSTREAM: 'https://staging.example.com/api' }), /^UPSTREAM must be .* ending in \/v1/)
  t.match(refused({ UPSTREAM: 'ftp://staging.example.com/v1' }), /^UPSTREAM must be the real API's base URL, http\(s\)/)
  t.match(refused({ UPSTREAM: 'https://user:pw@staging.example.com/v1' }), /^UPSTREAM must not carry credentials/)
  t.match(
    refused({ UPSTREAM: 'https://staging.example.com/v1', UPSTREAM_MODE: 'mirror' }),
    /^UPSTREAM_MODE must be one of compare, record, passthrough/,
  )
  t.match(
    refused({ UPSTREAM: 'https://staging.example.com/v1', UPSTREAM_TIMEOUT_MS: '0' }),
    /^UPSTREAM_TIMEOUT_MS must be a whole number from 1 to 60000/,
  )
  t.match(
    refused({ UPSTREAM: 'https://staging.example.com/v1', UPSTREAM_IGNORE: 'body/id' }),
    /^UPSTREAM_IGNORE: "body\/id" is not a JSON pointer/,
  )
  t.match(
    refused({ UPSTREAM: 'https://staging.example.com/v1', UPSTREAM_UNSAFE: 'yes' }),
    /^UPSTREAM_UNSAFE must be on or off/,
  )
  t.match(refused({ UPSTREAM_API_KEY: 'secret-key' }), /^UPSTREAM_API_KEY is set but UPSTREAM is not/)
  t.match(refused({ UPSTREAM_MODE: 'record' }), /^UPSTREAM_MODE is set but UPSTREAM is not/)
  t.notOk(refused({ UPSTREAM_API_KEY: 'secret-key' }).includes('secret-key'), 'the key is not in the message')
})

t.test('the defaults', async (t) => {
  const config = loadConfig(['--upstream', 'https://staging.example.com/v1/'], { UPSTREAM_API_KEY: 'k' })
  if (config === 'help') throw new Error('help')
  t.match(config.upstream, {
    url: 'https://staging.example.com/v1',
    apiKey: 'k',
    mode: 'compare',
    timeoutMs: 5000,
    ignore: ['/body/id', '/body/*/id', '/body/message'],
    unsafe: false,
  })
  const none = loadConfig([], {})
  t.equal(none === 'help' ? 'help' : none.upstream, undefined, 'no upstream by default')
})
