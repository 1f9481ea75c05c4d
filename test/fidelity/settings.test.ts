// The upstream's settings: a bad one stops the start with one line that names it.
import t from 'tap'
import { loadConfig } from '../../src/config.js'

t.test('a bad upstream setting names itself', async (t) => {
  const url = 'https://staging.example.com/v1'
  // The key must not be in its message: the lookahead below.
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ UPSTREAM: 'https://staging.example.com/api' }, /^UPSTREAM must be .* ending in \/v1/],
    [{ UPSTREAM: 'ftp://staging.example.com/v1' }, /^UPSTREAM must be the real API's base URL, http\(s\)/],
    [{ UPSTREAM: 'https://user:pw@staging.example.com/v1' }, /^UPSTREAM must not carry credentials/],
    [{ UPSTREAM: url, UPSTREAM_MODE: 'mirror' }, /^UPSTREAM_MODE must be one of compare, record, passthrough/],
    [{ UPSTREAM: url, UPSTREAM_TIMEOUT_MS: '0' }, /^UPSTREAM_TIMEOUT_MS must be a whole number from 1 to 60000/],
    [
      { UPSTREAM: url, UPSTREAM_MAX_BYTES: '1000' },
      /^UPSTREAM_MAX_BYTES must be a whole number from 1024 to 1073741824/,
    ],
    [{ UPSTREAM: url, UPSTREAM_IGNORE: 'body/id' }, /^UPSTREAM_IGNORE: "body\/id" is not a JSON pointer/],
    [{ UPSTREAM: url, UPSTREAM_UNSAFE: 'yes' }, /^UPSTREAM_UNSAFE must be on or off/],
    [{ UPSTREAM_API_KEY: 'secret-key' }, /^UPSTREAM_API_KEY is set but UPSTREAM is not(?![\s\S]*secret-key)/],
    [{ UPSTREAM_MODE: 'record' }, /^UPSTREAM_MODE is set but UPSTREAM is not/],
  ]
  for (const [env, message] of cases)
    t.throws(() => loadConfig([], env), { name: 'ConfigError', message }, JSON.stringify(env))
})

t.test('the defaults', async (t) => {
  const config = loadConfig(['--upstream', 'https://staging.example.com/v1/'], { UPSTREAM_API_KEY: 'k' })
  if (config === 'help') throw new Error('help')
  t.match(config.upstream, {
    url: 'https://staging.example.com/v1',
    apiKey: 'k',
    mode: 'compare',
    timeoutMs: 5000,
    maxBytes: 1024 * 1024,
    ignore: ['/body/id', '/body/*/id', '/body/message'],
    unsafe: false,
  })
  const none = loadConfig([], {})
  t.equal(none === 'help' ? 'help' : none.upstream, undefined, 'no upstream by default')
})
