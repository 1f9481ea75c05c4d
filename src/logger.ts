import { pino, type Logger } from 'pino'
import type { LogLevel } from './config.js'

export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  // The Authorization header is never logged: request logs carry method, path and status only,
  // and this redaction covers any header object that reaches a log line by mistake.
  const options = {
    level,
    base: { service: 'animal-store-sandbox' },
    redact: ['*.headers.authorization', '*.authorization'],
  }
  return destination ? pino(options, destination) : pino(options)
}
