// No test, module or example turns certificate verification off: a client of the sandbox trusts
// its CA instead (docs/tls.md). This file names the ways, so it is the one file left out.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ROOT } from '../support/sandbox.js'

const SELF = 'test/docs/tls-verification.test.ts'
/** Node, Python, Go, Java (and curl), as each language spells "don't verify". */
const INSECURE = [
  /rejectUnauthorized\s*:\s*false/,
  /NODE_TLS_REJECT_UNAUTHORIZED/,
  /verify\s*=\s*False/,
  /CERT_NONE|_create_unverified_context/,
  /InsecureSkipVerify/,
  /trust_?all/i,
  /NoopHostnameVerifier|ALLOW_ALL_HOSTNAME_VERIFIER/,
  /\bcurl\b[^\n]*\s(-k|--insecure)\b/,
]

t.test('no file turns certificate verification off', async (t) => {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && file !== SELF && !file.endsWith('package-lock.json'))
  t.ok(files.length > 100, 'the tree is read')
  const found: string[] = []
  for (const file of files) {
    let text: string
    try {
      text = readFileSync(join(ROOT, file), 'utf8')
    } catch {
      continue // listed but gone (a deletion not yet committed)
    }
    if (text.includes('\0')) continue // binary
    for (const pattern of INSECURE) if (pattern.test(text)) found.push(`${file}: ${pattern.source}`)
  }
  t.same(found, [])
})
