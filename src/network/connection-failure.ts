/**
 * A connection that failed on its way to a server, in the words every report uses: refused, reset,
 * or not answered in time. The same words whichever side saw it: the egress proxy dialing for
 * Chromium (a Node errno, or its own timer), Chromium (a net:: error name), or pdfrender fetching a
 * header's image itself. Never a "502" of pdfrender's own proxy, which is no answer of the server's.
 */

/** CONNECTION_REFUSED: nothing listens there; CONNECTION_RESET: the server dropped the connection; TIMED_OUT: no answer in time. */
export const connectionFailureCodes = ['CONNECTION_REFUSED', 'CONNECTION_RESET', 'TIMED_OUT'] as const;
export type ConnectionFailureCode = (typeof connectionFailureCodes)[number];

export interface ConnectionFailure {
  code: ConnectionFailureCode;
  /** Safe for any caller: it says only what the server did, never an address. */
  reason: string;
}

const reasons: Record<ConnectionFailureCode, string> = {
  CONNECTION_REFUSED: 'the server refused the connection',
  CONNECTION_RESET: 'the server reset the connection',
  TIMED_OUT: 'the server did not answer in time',
};

// Node's errno names and Chromium's net error names for the same three things.
const byName: Record<string, ConnectionFailureCode> = {
  ECONNREFUSED: 'CONNECTION_REFUSED',
  'net::ERR_CONNECTION_REFUSED': 'CONNECTION_REFUSED',
  ECONNRESET: 'CONNECTION_RESET',
  EPIPE: 'CONNECTION_RESET',
  'net::ERR_CONNECTION_RESET': 'CONNECTION_RESET',
  ETIMEDOUT: 'TIMED_OUT',
  'net::ERR_TIMED_OUT': 'TIMED_OUT',
  'net::ERR_CONNECTION_TIMED_OUT': 'TIMED_OUT',
};

/** The failure of code `code`, with its reason. */
export function connectionFailure(code: ConnectionFailureCode): ConnectionFailure {
  return { code, reason: reasons[code] };
}

/** The failure an errno name (ECONNREFUSED) or a net:: error name (net::ERR_CONNECTION_RESET) stands for, if it is one of the three. */
export function connectionFailureOf(name: string | undefined): ConnectionFailure | undefined {
  const code = name === undefined ? undefined : byName[name];
  return code && connectionFailure(code);
}

/** True for one of the three codes (a proxy header's value is checked before it is believed). */
export function isConnectionFailureCode(value: string | undefined): value is ConnectionFailureCode {
  return (connectionFailureCodes as readonly string[]).includes(value ?? '');
}
