// Each language's module as a new team gets it, by the words of its README: a scratch clone of the
// modules (the files git tracks, nothing built or installed) beside a scratch project, the README's
// install block run there as written, the README's example written as the project's test, run
// against the image. The blocks are read from the READMEs, never copied by hand, so a route or an
// example that drifts fails here (the Python README's end-of-suite check runs in the Python module's
// suite). It skips without Docker (fails under REQUIRE_DOCKER=1), and a language whose tools are
// missing skips (fails under REQUIRE_PROGRAMS=1).
import { existsSync, readFileSync } from 'node:fs'
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { dockerSkipReason, ensureImage } from '../support/docker.js'
import { ROOT, tempDir } from '../support/sandbox.js'
import { mustRun, runProgram, skipWithout } from '../support/system-programs.js'

/** What a team's CI sets, as the READMEs say; the image is the modules' default tag, which `npm run image` makes. */
const CONSUMER_ENV = { NO_COLOR: '1', ANIMAL_STORE_IMAGE: undefined }
const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  runProgram(command, args, cwd, { ...CONSUMER_ENV, ...env })
const must = async (command: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  (await mustRun(command, args, cwd, { ...CONSUMER_ENV, ...env })).output

/** A module's README, cut into its `## ` sections. */
function readme(module: string): Map<string, string> {
  const text = readFileSync(join(ROOT, 'modules', module, 'README.md'), 'utf8')
  const sections = new Map<string, string>()
  for (const match of text.matchAll(/^## (.+)\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)) sections.set(match[1]!, match[2]!)
  return sections
}

/** The fenced blocks of one language in a section. */
function blocks(section: string | undefined, language: string): string[] {
  return [...(section ?? '').matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)]
    .filter((match) => match[1] === language)
    .map((match) => match[2]!)
}

/** The one block of a language in a section that passes `pick`; fails the test when there is none. */
function block(section: string | undefined, language: string, pick: (code: string) => boolean = () => true): string {
  const found = blocks(section, language).find(pick)
  if (found === undefined) throw new Error(`no such \`\`\`${language} block in the README section`)
  return found
}

/**
 * Checks that the section says the package is not published, then runs its first `sh` block as
 * written, with bash, from the project folder.
 */
async function installAsTheReadmeSays(t: Test, section: string | undefined, project: string, env = {}) {
  t.match(section, /\*\*Not published yet\*\*/, 'the install section says first that it is not published')
  const install = block(section, 'sh')
  t.comment(`$ ${install.trim().replaceAll('\n', '\n# $ ')}`)
  await must('bash', ['-euo', 'pipefail', '-c', install], project, env)
}

t.setTimeout(40 * 60_000)
const dockerSkip = (await dockerSkipReason(t)) ?? false

// The layout the READMEs assume: the project, with a clone of the sandbox's repository beside it
// (its modules, and the control API's spec, from which the Java module generates its client).
const workspace = await tempDir(t)
const clone = join(workspace, 'animal-store-sandbox')
const tracked = (await must('git', ['ls-files', '-z', 'modules', 'spec'], ROOT)).split('\0').filter(Boolean)
for (const file of tracked) if (existsSync(join(ROOT, file))) await cp(join(ROOT, file), join(clone, file))

async function project(name: string): Promise<string> {
  const dir = join(workspace, name)
  await mkdir(dir)
  return dir
}

if (!dockerSkip) await ensureImage()

t.test(
  'Node: the tarball route, the global setup with workers of the README, its end-of-suite check',
  { skip: dockerSkip },
  async (t) => {
    const sections = readme('node')
    const dir = await project('node-project')
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'pets-client', private: true, type: 'module' }))
    // Caches are reused: a warm npm cache makes the installs a few seconds each.
    await installAsTheReadmeSays(t, sections.get('Install'), dir, { npm_config_prefer_offline: 'true' })
    const example = blocks(sections.get('One container for a parallel suite'), 'js')
    for (const code of example) {
      const name = /^\/\/ ([\w.-]+\.mjs):/.exec(code)?.[1]
      if (name === undefined) throw new Error(`an example block does not start with its file's name:\n${code}`)
      await writeFile(join(dir, name), code)
    }
    const output = await must('node', ['run.mjs'], dir)
    t.match(output, /^# pass 2\n# fail 0$/m, 'the workers ran against the container of the global setup')

    // The end-of-suite check: without the test that calls listOrders, every test passes, the run fails.
    await rm(join(dir, 'orders.test.mjs'))
    const { code, output: failed } = await run('node', ['run.mjs'], dir)
    t.match(failed, /^# pass 1\n# fail 0$/m, 'every test passed')
    t.not(code, 0, 'the run failed')
    t.match(
      failed,
      /end-of-suite check failed: [\s\S]*listOrders \(GET \/v1\/store\/orders\), every namespace: never exercised default/,
      'naming the response',
    )
  },
)

t.test(
  'Python: pip from the folder, the README conftest.py and test_pets.py',
  { skip: dockerSkip || skipWithout(t, 'python3', 'python3') },
  async (t) => {
    const sections = readme('python')
    const dir = await project('python-project')
    await must('python3', ['-m', 'venv', '.venv'], dir)
    const venv = { PATH: `${join(dir, '.venv/bin')}:${process.env['PATH']}`, VIRTUAL_ENV: join(dir, '.venv') }
    const quiet = { ...venv, PIP_DISABLE_PIP_VERSION_CHECK: '1' }
    await must('pip', ['install', '-q', 'pytest'], dir, quiet) // the project's own test runner
    await installAsTheReadmeSays(t, sections.get('Install'), dir, quiet)
    for (const code of blocks(sections.get('Usage'), 'python')) {
      const name = /^# ([\w.]+\.py)\n/.exec(code)?.[1]
      if (name !== undefined) await writeFile(join(dir, name), code)
    }
    const pytest = ['-m', 'pytest', '-q', '-p', 'no:cacheprovider']
    const output = await must('python', pytest, dir, venv)
    t.match(output, /^2 passed/m, "the README's two tests passed")

    // The end-of-suite check as written, its conftest.py in place of the first one, with the test
    // that calls listOrders: the run passes. Without that test, every test passes, the run fails.
    const check = sections.get('Usage')?.split('### The end-of-suite check')[1]?.split('\n### ')[0]
    await writeFile(
      join(dir, 'conftest.py'),
      block(check, 'python', (code) => code.startsWith('# conftest.py, with')),
    )
    await writeFile(
      join(dir, 'test_orders.py'),
      block(check, 'python', (code) => code.startsWith('# test_orders.py')),
    )
    t.match(
      await must('python', pytest, dir, venv),
      /^3 passed/m,
      'with the test that calls listOrders, the run passed',
    )
    await rm(join(dir, 'test_orders.py'))
    const { code, output: failed } = await run('python', pytest, dir, venv)
    t.not(code, 0, 'without it, the run failed')
    t.match(failed, /^2 passed, 1 error/m, 'every test passed')
    t.match(
      failed,
      /listOrders \(GET \/v1\/store\/orders\), every namespace: never exercised default/,
      'naming the response',
    )
  },
)

/** A `### ` subsection of a README section, up to the next one; fails the test when there is none. */
function subsection(section: string | undefined, title: string): string {
  const found = new RegExp(`^### ${title}\n([\\s\\S]*?)(?=^### |(?![\\s\\S]))`, 'm').exec(section ?? '')
  if (found === null) throw new Error(`no subsection ### ${title} in the README section`)
  return found[1]!
}

/** Writes each block of the languages given to the file its first line names, e.g. `// src/test/java/A.java`. */
async function writeNamedBlocks(dir: string, section: string, languages: string[]): Promise<string[]> {
  const files = []
  for (const code of languages.flatMap((language) => blocks(section, language))) {
    const file = /^(?:\/\/|#) (src\/[\w/.-]+)\n/.exec(code)?.[1]
    if (file === undefined) throw new Error(`a block does not start with its file's name:\n${code}`)
    await mkdir(join(dir, file, '..'), { recursive: true })
    await writeFile(join(dir, file), code)
    files.push(file)
  }
  return files
}

t.test(
  'Java: mvn install without the module tests, the README pom, example and end-of-suite check',
  { skip: dockerSkip || skipWithout(t, 'mvn', 'maven') },
  async (t) => {
    const sections = readme('java')
    const dir = await project('java-project')
    await installAsTheReadmeSays(t, sections.get('Install'), dir)
    await writeFile(
      join(dir, 'pom.xml'),
      block(sections.get('Install'), 'xml', (code) => code.startsWith('<?xml')),
    )
    const example = block(sections.get('Usage'), 'java', (code) => code.includes('class SandboxExampleTest'))
    await mkdir(join(dir, 'src/test/java'), { recursive: true })
    await writeFile(join(dir, 'src/test/java/SandboxExampleTest.java'), example)
    const host = process.env['TESTCONTAINERS_HOST_OVERRIDE']
    const env: Record<string, string> = host ? { TESTCONTAINERS_HOST_OVERRIDE: host } : {}
    await must('mvn', ['-B', '-q', 'test'], dir, env)
    const reports = join(dir, 'target/surefire-reports')
    const passed = /tests="1" errors="0" skipped="0" failures="0"/
    t.match(await readFile(join(reports, 'TEST-SandboxExampleTest.xml'), 'utf8'), passed, 'the example ran and passed')

    // The end-of-suite check, in the same project: it passes, then fails once the class calling listOrders is gone.
    const suite = subsection(sections.get('Usage'), 'The end-of-suite check')
    const files = await writeNamedBlocks(dir, suite, ['properties', 'java'])
    t.ok(files.includes('src/test/resources/junit-platform.properties'), 'the check comes with its properties file')
    const callsListOrders = files.find((file) => readFileSync(join(dir, file), 'utf8').includes('/store/orders'))
    if (callsListOrders === undefined) throw new Error('no block of the end-of-suite check calls listOrders')
    const check = files.find((file) => readFileSync(join(dir, file), 'utf8').includes('@Order(Integer.MAX_VALUE)'))
    const checkReport = join(reports, `TEST-${/(\w+)\.java$/.exec(check ?? '')?.[1]}.xml`)
    await must('mvn', ['-B', '-q', 'test'], dir, env)
    t.match(await readFile(checkReport, 'utf8'), passed, 'the check passed after the suite called listOrders')

    await rm(join(dir, callsListOrders))
    const { code, output } = await run('mvn', ['-B', '-q', 'test'], dir, env)
    t.not(code, 0, 'without the class calling listOrders, the build fails')
    t.match(
      output,
      /listOrders \(GET \/v1\/store\/orders\), every namespace: never exercised default/,
      'naming listOrders',
    )
    t.match(await readFile(checkReport, 'utf8'), /tests="1" errors="0" skipped="0" failures="1"/, 'in the check')
    t.match(await readFile(join(reports, 'TEST-SandboxExampleTest.xml'), 'utf8'), passed, 'the other tests passed')
  },
)

/** The imports an example body uses, by the package names it calls. */
const GO_IMPORTS: Record<string, string> = {
  cmp: 'cmp',
  context: 'context',
  json: 'encoding/json',
  fmt: 'fmt',
  log: 'log',
  http: 'net/http',
  os: 'os',
  strings: 'strings',
  testcontainers: 'github.com/testcontainers/testcontainers-go',
  animalstore: 'github.com/animal-store/animal-store-sandbox/modules/go/animalstore',
  api: 'github.com/animal-store/animal-store-sandbox/modules/go/animalstore/api',
  control: 'github.com/animal-store/animal-store-sandbox/modules/go/animalstore/control',
}

t.test(
  'Go: the replace route, ExampleRun and the end-of-suite check of the README',
  { skip: dockerSkip || skipWithout(t, 'go', 'golang') },
  async (t) => {
    const sections = readme('go')
    const dir = await project('go-project')
    await must('go', ['mod', 'init', 'example.com/pets-client'], dir)
    const body = block(sections.get('Usage'), 'go', (code) => code.includes('// Output:'))
    const used = Object.keys(GO_IMPORTS).filter((name) => new RegExp(`\\b${name}\\.`).test(body))
    const imports = used.map((name) => `\t${JSON.stringify(GO_IMPORTS[name])}`).join('\n')
    const indented = body.replace(/^(?=.)/gm, '\t')
    await writeFile(
      join(dir, 'example_test.go'),
      `package pets\n\nimport (\n${imports}\n)\n\nfunc ExampleRun() {\n${indented}}\n`,
    )
    // The README's route runs once the code imports the module, as it says.
    await installAsTheReadmeSays(t, sections.get('Install'), dir)
    const output = await must('go', ['test', '-count=1', '-run', '^ExampleRun$', '-v', './...'], dir)
    t.match(output, /^--- PASS: ExampleRun/m, "the README's example printed its Output")

    // The end-of-suite check beside it: it passes, then fails once orders_test.go is gone.
    const check = subsection(sections.get('Coverage and verification'), 'The end-of-suite check in TestMain')
    for (const code of blocks(check, 'go')) {
      const file = /^\/\/ (\w+_test\.go):/.exec(code)?.[1]
      if (file === undefined) throw new Error(`a block does not start with its file's name:\n${code}`)
      await writeFile(join(dir, file), code)
    }
    t.match(await must('go', ['test', '-count=1', './...'], dir), /^ok /m, 'the suite and its check passed')
    await rm(join(dir, 'orders_test.go'))
    const { code, output: failed } = await run('go', ['test', '-count=1', './...'], dir)
    t.not(code, 0, 'without orders_test.go, go test failed')
    t.match(
      failed,
      /end-of-suite check failed: listOrders \(GET \/v1\/store\/orders\), every namespace: never exercised default/,
      'naming listOrders',
    )
  },
)
