// The verification capability's part of the settings table (src/settings.ts).
import * as read from '../setting-readers.js'
import { setting } from '../setting-readers.js'

export const VERIFICATION_SETTINGS = {
  coverageFile: setting({
    default: undefined as string | undefined,
    shown: 'none',
    parse: read.reportFile,
    help: 'write the coverage report of every namespace there at shutdown (Markdown for `.md`, else JSON)',
  }),
}
