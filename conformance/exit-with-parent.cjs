// Preloaded into the Prism child process (node --require). When the process that started Prism
// goes away, however it dies (a failed test, a tap timeout, even SIGKILL), the child is
// re-parented; Prism notices within half a second and exits instead of living on as an orphan.
// (Watching stdin for EOF would be simpler, but blocks start-up under ESM loader hooks such as tap's.)
'use strict'
/* global process, setInterval */
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) process.exit(0)
}, 500).unref()
