// Preloaded into the Prism child process (node --require). The parent holds the write end of
// this process's stdin; when the parent goes away, however it dies (a failed test, a tap timeout,
// even SIGKILL), the pipe closes and Prism exits with it instead of living on as an orphan.
'use strict'
process.stdin.on('end', () => process.exit(0))
process.stdin.on('error', () => process.exit(0))
process.stdin.resume()
