// The documentation stays true: every relative link of README.md, CHANGELOG.md and docs/*.md leads
// to a file (and, with #anchor, to a heading of it, by GitHub's slug rules); every npm command they
// show names a script of package.json or an npm built-in; the README's settings table is the one
// `npm run docs:settings` makes from src/settings.ts, and other settings tables name only real
// settings; the README stays short; its "Use it in your tests" section holds the snippets the
// container and package tests run.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parse } from 'yaml'
import { namesOf, SETTINGS } from '../../src/settings.js'
import { withSettingsTable } from '../../scripts/settings-table.js'

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

/** The fenced code blocks of a Markdown text: language and content. */
function fencedBlocks(markdown: string): Array<{ language: string; content: string }> {
  const blocks: Array<{ language: string; content: string }> = []
  let open: { fence: string; language: string; lines: string[] } | undefined
  for (const line of markdown.split('\n')) {
    if (open) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)
      if (close?.[1] && close[1][0] === open.fence[0] && close[1].length >= open.fence.length) {
        blocks.push({ language: open.language, content: open.lines.join('\n') })
        open = undefined
      } else {
        open.lines.push(line)
      }
      continue
    }
    const start = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/.exec(line)
    if (start?.[1]) open = { fence: start[1], language: start[2] ?? '', lines: [] }
  }
  return blocks
}

/** The text outside fenced code blocks (their lines left empty, so line numbers hold). */
function withoutFences(markdown: string): string {
  let fence: string | undefined
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
      if (fence === undefined) {
        if (marker) fence = marker
        return marker ? '' : line
      }
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line))
        fence = undefined
      return ''
    })
    .join('\n')
}

const INLINE_CODE = /(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g

/** The inline code spans of a text outside fences, without their backticks. */
function inlineCode(prose: string): string[] {
  return [...prose.matchAll(INLINE_CODE)].map((match) =>
    match[0].slice(match[1]?.length ?? 1, -(match[1]?.length ?? 1)),
  )
}

/** GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces made hyphens. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/<[^>]+>/g, '') // HTML tags
    .trim()
    .toLowerCase()
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
}

/** Every anchor a Markdown file offers: its headings' slugs (repeats get -1, -2, …) and HTML ids. */
function anchors(markdown: string): Set<string> {
  const prose = withoutFences(markdown)
  const seen = new Map<string, number>()
  const result = new Set<string>()
  for (const match of prose.matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const slug = githubSlug(match[1] ?? '')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    result.add(count === 0 ? slug : `${slug}-${count}`)
  }
  for (const match of prose.matchAll(/<[a-z]+\s[^>]*\b(?:id|name)="([^"]+)"/gi)) result.add(match[1] ?? '')
  return result
}

/** Every link target of a Markdown file, outside code: inline links and images, references, HTML. */
function linkTargets(markdown: string): string[] {
  const prose = withoutFences(markdown).replace(INLINE_CODE, '``')
  const targets: string[] = []
  for (const match of prose.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g))
    targets.push((match[1] ?? '').replace(/^<|>$/g, ''))
  for (const match of prose.matchAll(/^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?/gm)) targets.push(match[1] ?? '')
  for (const match of prose.matchAll(/<(?:a|img)\s[^>]*\b(?:href|src)="([^"]+)"/gi)) targets.push(match[1] ?? '')
  return targets
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
const NPM_BUILT_INS = new Set([
  'ci',
  'install',
  'i',
  'uninstall',
  'update',
  'pack',
  'publish',
  'exec',
  'init',
  'link',
  'ls',
  'view',
  'version',
  'help',
  'config',
  'audit',
  'cache',
  'prune',
  'outdated',
])

/** The npm commands a document shows: `npm run X` anywhere, `npm X` in code. Each as [command, script or built-in]. */
function npmCommands(markdown: string): Array<[string, string]> {
  const prose = withoutFences(markdown)
  const code = [...fencedBlocks(markdown).map((block) => block.content), ...inlineCode(prose)].join('\n')
  const found: Array<[string, string]> = []
  // One command per line: [ \t] rather than \s, so that `npm` alone does not take the next line's word.
  for (const match of code.matchAll(
    /\bnpm(?:[ \t]+--?[\w-]+)*[ \t]+([a-z][\w:-]*)(?:[ \t]+(?:--?[\w-]+[ \t]+)*([\w:.-]+))?/g,
  )) {
    const [command, verb = '', next = ''] = match
    found.push([command.trim(), verb === 'run' || verb === 'run-script' ? next : verb])
  }
  for (const match of prose.replace(INLINE_CODE, '').matchAll(/\bnpm run ([\w:.-]+)/g))
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

/** The flags and variables of the table of settings. */
function settingsRead(): { variables: Set<string>; flags: Set<string> } {
  const names = Object.keys(SETTINGS).map((key) => namesOf(key as keyof typeof SETTINGS))
  return {
    variables: new Set(names.flatMap(({ env }) => env ?? [])),
    flags: new Set(names.flatMap(({ flag }) => flag ?? [])),
  }
}

/** The section of a Markdown text under an H2 heading, up to the next H2 (or the end). */
function section(markdown: string, heading: string): string | undefined {
  const lines = markdown.split('\n')
  const prose = withoutFences(markdown).split('\n') // the same lines, fenced ones left empty
  const start = prose.findIndex((line) => line.trimEnd() === `## ${heading}`)
  if (start === -1) return undefined
  const end = prose.findIndex((line, index) => index > start && line.startsWith('## '))
  return lines.slice(start, end === -1 ? undefined : end).join('\n')
}

/** The settings a `| flag | variable | … |` table names: backticked `--flags` and `VARIABLES` (of `ADMIN=off`, ADMIN). */
function settingsTables(markdown: string): Array<{ variables: Set<string>; flags: Set<string> }> {
  const tables: Array<{ variables: Set<string>; flags: Set<string> }> = []
  const lines = withoutFences(markdown).split('\n')
  const cells = (line: string): string[] =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim())
  for (let i = 0; i < lines.length; i++) {
    const header = cells(lines[i] ?? '')
    if (!(lines[i] ?? '').trim().startsWith('|') || !header.includes('flag') || !header.includes('variable')) continue
    const flagColumn = header.indexOf('flag')
    const variableColumn = header.indexOf('variable')
    const table = { variables: new Set<string>(), flags: new Set<string>() }
    for (let j = i + 2; j < lines.length && (lines[j] ?? '').trim().startsWith('|'); j++) {
      const row = cells(lines[j] ?? '')
      for (const code of inlineCode(row[variableColumn] ?? '')) {
        const name = /^[A-Z][A-Z0-9_]*/.exec(code)?.[0]
        if (name) table.variables.add(name)
      }
      for (const code of inlineCode(row[flagColumn] ?? '')) if (code.startsWith('--')) table.flags.add(code)
      i = j
    }
    tables.push(table)
  }
  return tables
}

t.test('the README settings table is the one made from src/settings.ts (npm run docs:settings)', async (t) => {
  const readme = read('README.md')
  t.equal(withSettingsTable(readme), readme, 'npm run docs:settings changes nothing')
  const settings = section(readme, 'Settings')
  if (settings === undefined) throw new Error('README.md has no "## Settings" section')
  const [table] = settingsTables(settings)
  const sandbox = settingsRead()
  t.same([...(table?.variables ?? [])].sort(), [...sandbox.variables].sort(), 'it names every variable')
  t.same([...(table?.flags ?? [])].sort(), [...sandbox.flags].sort(), 'and every flag')
  for (const document of documents()) {
    for (const other of settingsTables(read(document))) {
      t.same(
        [...other.variables].filter((name) => !sandbox.variables.has(name)),
        [],
        `${document}: a settings table names only variables the sandbox reads`,
      )
      t.same(
        [...other.flags].filter((flag) => !sandbox.flags.has(flag)),
        [],
        `${document}: a settings table names only flags the sandbox reads`,
      )
    }
  }
})

t.test(`the README is at most ${README_MAX_LINES} lines`, async (t) => {
  const lines = read('README.md').replace(/\n$/, '').split('\n').length
  t.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`)
})

t.test(
  '"Use it in your tests" holds the one sh, yaml and ts snippet the container and package tests run',
  async (t) => {
    // The same extraction as usageSnippets() in test/support/docker.ts.
    const readme = read('README.md')
    const usage = /^## Use it in your tests\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1]
    if (usage === undefined)
      throw new Error('README.md has no "## Use it in your tests" section followed by another H2')
    const blocks = [...usage.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)]
    const of = (language: string): string[] =>
      blocks.filter((match) => match[1] === language).map((match) => match[2] ?? '')
    t.equal(of('sh').length, 1, 'one sh block')
    t.match(
      of('sh')[0] ?? '',
      /docker run .*-p 4010:4010 .*animal-store-sandbox:local/,
      'the sh block is the docker run snippet',
    )
    t.equal(of('yaml').length, 1, 'one yaml block')
    const compose = parse(of('yaml')[0] ?? '') as { services?: Record<string, { image?: string }> }
    t.equal(
      compose.services?.['animal-store']?.image,
      'animal-store-sandbox:local',
      'the yaml block is the compose file',
    )
    t.equal(of('ts').length, 1, 'one ts block')
    t.match(
      of('ts')[0] ?? '',
      /from 'animal-store-sandbox-testcontainers'/,
      'the ts block is the Testcontainers example',
    )
  },
)

t.test('every file of the repository that the README and docs name in code exists', async (t) => {
  // Generated output (the bench's results, a tool's scratch folder) is named but git ignores it;
  // the changelog names files as they were at the time.
  const PATH = /^(?:src|test|scripts|bench|conformance|spec|fixtures|modules|docs)\/[\w./-]+$/
  for (const document of [...documents().filter((name) => name !== 'CHANGELOG.md'), 'CONTRIBUTING.md']) {
    const named = inlineCode(withoutFences(read(document)))
      .map((code) => code.replace(/^`+|`+$/g, '').trim())
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
