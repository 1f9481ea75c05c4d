// The documentation stays true: every relative link of README.md, CHANGELOG.md and docs/*.md leads
// to a file (and, with #anchor, to a heading of it, by GitHub's slug rules); every npm command they
// show names a script of package.json or an npm built-in; the README's settings table is the one
// `npm run docs:settings` makes from src/settings.ts, and other settings tables name only real
// settings; the control API's table of operations is the one `npm run docs:operations` makes from
// its spec; the README stays short. (The snippets of its "Use it in your tests" section are run by
// the container and package tests.)
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import GithubSlugger from 'github-slugger'
import { Lexer, walkTokens, type Token } from 'marked'
import t from 'tap'
import { namesOf, SETTINGS } from '../../src/settings.js'
import { withSettingsTable } from '../../scripts/settings-table.js'
import { withOperationsTable } from '../../scripts/operations-table.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const README_MAX_LINES = 450

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

/** README.md, CHANGELOG.md and every docs/*.md, as paths relative to the root. */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`)
  return ['README.md', 'CHANGELOG.md', ...docs]
}

/** Every token of Markdown (or of a token list): nested ones too, in list items, table cells, links. */
function tokens(markdown: string | Token[]): Token[] {
  const all: Token[] = []
  walkTokens(typeof markdown === 'string' ? Lexer.lex(markdown) : markdown, (token) => void all.push(token))
  return all
}

const ofType = <T extends Token['type']>(list: Token[], type: T): Array<Extract<Token, { type: T }>> =>
  list.filter((token): token is Extract<Token, { type: T }> => token.type === type)

/** The text of inline tokens, as GitHub reads a heading for its anchor: no markup, no HTML. */
function plainText(list: Token[] = []): string {
  return list
    .map((token) =>
      token.type === 'html'
        ? ''
        : 'tokens' in token && token.tokens
          ? plainText(token.tokens)
          : ((token as { text?: string }).text ?? ''),
    )
    .join('')
}

/** Every anchor a Markdown file offers: its headings' slugs (repeats get -1, -2, …) and HTML ids. */
function anchors(markdown: string): Set<string> {
  const all = tokens(markdown)
  const slugger = new GithubSlugger()
  const result = new Set(ofType(all, 'heading').map((heading) => slugger.slug(plainText(heading.tokens))))
  for (const html of ofType(all, 'html'))
    for (const match of html.raw.matchAll(/<[a-z]+\s[^>]*\b(?:id|name)="([^"]+)"/gi)) result.add(match[1] ?? '')
  return result
}

/** Every link target of a Markdown file, outside code: inline links and images, references, HTML. */
function linkTargets(markdown: string): string[] {
  const all = tokens(markdown)
  const html = ofType(all, 'html').flatMap((token) =>
    [...token.raw.matchAll(/<(?:a|img)\s[^>]*\b(?:href|src)="([^"]+)"/gi)].map((match) => match[1] ?? ''),
  )
  return [...all.flatMap((token) => ('href' in token && typeof token.href === 'string' ? [token.href] : [])), ...html]
}

/** The inline code spans of Markdown (or of a token list), outside fences. */
const inlineCode = (markdown: string | Token[]): string[] =>
  ofType(tokens(markdown), 'codespan').map((code) => code.text)

/** The top-level tokens under an H2 heading, up to the next H2 (or the end). */
function section(markdown: string, heading: string): Token[] | undefined {
  const list = Lexer.lex(markdown) as Token[]
  const isH2 = (token: Token): boolean => token.type === 'heading' && token.depth === 2
  const start = list.findIndex((token) => isH2(token) && token.type === 'heading' && token.text === heading)
  if (start === -1) return undefined
  const end = list.findIndex((token, index) => index > start && isH2(token))
  return list.slice(start + 1, end === -1 ? undefined : end)
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')

/** Why a relative link of `document` is broken, or undefined when it leads somewhere that exists. */
function brokenLink(document: string, target: string): string | undefined {
  const hash = target.indexOf('#')
  const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash))
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
  const file = pathPart === '' ? join(ROOT, document) : resolve(join(ROOT, dirname(document)), pathPart)
  if (file !== ROOT && !file.startsWith(ROOT + sep)) return 'points outside the repository'
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`
  if (anchor === undefined) return undefined
  if (statSync(file).isDirectory() || !file.endsWith('.md'))
    return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : `#${anchor} in a file that is not Markdown`
  return anchors(readFileSync(file, 'utf8')).has(anchor)
    ? undefined
    : `${relative(ROOT, file)} has no heading #${anchor}`
}

t.test('every relative link leads to a file and heading that exist', async (t) => {
  const docs = documents()
  t.ok(docs.length >= 3, `the documents: ${docs.join(', ')}`)
  for (const document of docs) {
    const targets = [...new Set(linkTargets(read(document)).filter((target) => !isExternal(target)))]
    const broken = targets.flatMap((target) => {
      const reason = brokenLink(document, target)
      return reason === undefined ? [] : [`${target}: ${reason}`]
    })
    t.same(broken, [], `${document}: ${targets.length} distinct relative links, none broken`)
  }
})

// npm commands that do not run a script of package.json (start, test, stop and restart do).
const NPM_BUILT_INS = new Set(
  'ci install i uninstall update pack publish exec init link ls view version help config audit cache prune outdated'.split(
    ' ',
  ),
)

/** The npm commands a document shows: `npm run X` anywhere, `npm X` in code. Each as [command, script or built-in]. */
function npmCommands(markdown: string): Array<[string, string]> {
  const all = tokens(markdown)
  const code = [...ofType(all, 'code'), ...ofType(all, 'codespan')].map((token) => token.text).join('\n')
  const found: Array<[string, string]> = []
  // One command per line: [ \t] rather than \s, so that `npm` alone does not take the next line's word.
  for (const match of code.matchAll(
    /\bnpm(?:[ \t]+--?[\w-]+)*[ \t]+([a-z][\w:-]*)(?:[ \t]+(?:--?[\w-]+[ \t]+)*([\w:.-]+))?/g,
  )) {
    const [command, verb = '', next = ''] = match
    found.push([command.trim(), verb === 'run' || verb === 'run-script' ? next : verb])
  }
  const prose = ofType(all, 'text').filter((text) => !('tokens' in text && text.tokens))
  for (const match of prose
    .map((text) => text.text)
    .join('')
    .matchAll(/\bnpm run ([\w:.-]+)/g))
    found.push([match[0], match[1] ?? ''])
  return found
}

t.test('every npm command in the README and docs names a script or an npm built-in', async (t) => {
  const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts?: Record<string, string> }).scripts ?? {})
  const docs = documents().filter((document) => document !== 'CHANGELOG.md')
  let count = 0
  for (const document of docs) {
    const commands = npmCommands(read(document))
    count += commands.length
    const unknown = commands
      .filter(([, name]) => !scripts.includes(name) && !NPM_BUILT_INS.has(name))
      .map(([command]) => command)
    t.same(unknown, [], `${document}: ${commands.length} npm commands, each a script or a built-in`)
  }
  t.ok(count >= 10, `the commands were found (${count})`)
})

/** The settings a `| flag | variable | … |` table names: backticked `--flags` and `VARIABLES` (of `ADMIN=off`, ADMIN). */
function settingsTables(markdown: string | Token[]): Array<{ variables: Set<string>; flags: Set<string> }> {
  return ofType(tokens(markdown), 'table').flatMap((table) => {
    const header = table.header.map((cell) => cell.text.trim())
    const [flagColumn, variableColumn] = [header.indexOf('flag'), header.indexOf('variable')]
    if (flagColumn === -1 || variableColumn === -1) return []
    const codes = (column: number): string[] => table.rows.flatMap((row) => inlineCode(row[column]?.tokens ?? []))
    return [
      {
        variables: new Set(codes(variableColumn).flatMap((code) => /^[A-Z][A-Z0-9_]*/.exec(code)?.[0] ?? [])),
        flags: new Set(codes(flagColumn).filter((code) => code.startsWith('--'))),
      },
    ]
  })
}

t.test('the README settings table is the one made from src/settings.ts (npm run docs:settings)', async (t) => {
  const readme = read('README.md')
  t.equal(withSettingsTable(readme), readme, 'npm run docs:settings changes nothing')
  const settings = section(readme, 'Settings')
  if (settings === undefined) throw new Error('README.md has no "## Settings" section')
  const [table] = settingsTables(settings)
  // The flags and variables of the table of settings.
  const names = Object.keys(SETTINGS).map((key) => namesOf(key as keyof typeof SETTINGS))
  const variables = new Set(names.flatMap(({ env }) => env ?? []))
  const flags = new Set(names.flatMap(({ flag }) => flag ?? []))
  t.same([...(table?.variables ?? [])].sort(), [...variables].sort(), 'it names every variable')
  t.same([...(table?.flags ?? [])].sort(), [...flags].sort(), 'and every flag')
  for (const document of documents())
    for (const other of settingsTables(read(document)))
      t.same(
        [...other.variables, ...other.flags].filter((name) => !variables.has(name) && !flags.has(name)),
        [],
        `${document}: a settings table names only variables and flags the sandbox reads`,
      )
})

t.test("the control API's table of operations is the one made from its spec (npm run docs:operations)", async (t) => {
  const page = read('docs/control-api.md')
  t.equal(withOperationsTable(page), page, 'npm run docs:operations changes nothing')
})

t.test(`the README is at most ${README_MAX_LINES} lines`, async (t) => {
  const lines = read('README.md').replace(/\n$/, '').split('\n').length
  t.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`)
})

t.test('every file of the repository that the README and docs name in code exists', async (t) => {
  // Generated output (the bench's results, a tool's scratch folder) is named but git ignores it;
  // the changelog names files as they were at the time.
  const PATH = /^(?:src|test|scripts|bench|conformance|spec|fixtures|modules|docs)\/[\w./-]+$/
  for (const document of [...documents().filter((name) => name !== 'CHANGELOG.md'), 'CONTRIBUTING.md']) {
    const named = inlineCode(read(document))
      .map((code) => code.trim())
      .filter((code) => PATH.test(code) && !ignoredByGit(code))
    for (const path of new Set(named)) t.ok(existsSync(join(ROOT, path)), `${document} names ${path}`)
  }
})

/** Whether git ignores `path` (generated output such as bench/results/), as a file or a folder. */
function ignoredByGit(path: string): boolean {
  try {
    // With --no-index, a folder pattern (`.venv/`) matches a path that does not exist yet too.
    execFileSync('git', ['check-ignore', '--no-index', path, `${path}/`], { cwd: ROOT, stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
