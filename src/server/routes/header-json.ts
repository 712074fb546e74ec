/**
 * JSON in a response header: header values must be printable ASCII, so every other character of
 * the JSON (a URL with non-Latin letters, an emoji in a message) is escaped as \uXXXX, which any
 * JSON parser reads back as it was.
 */

/** The longest JSON header value sent: proxies commonly take 8 KiB of headers in all. */
export const maxHeaderJsonChars = 4000;

/** `value` as JSON in printable ASCII. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
