/**
 * The bound on what pdfrender reads from the browser's DevTools pipe (capped-messages.ts): messages
 * within it pass untouched however the pipe splits them, and one over it is read through without
 * being kept, an answer becoming an error answer to the same call and a scriptParsed a stand-in that
 * still says a page script ran.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { capMessages } from '../src/engine/browser/capped-messages.js';

/** The messages `chunks` come out as, through a cap of `maxBytes`. */
async function through(chunks: string[], maxBytes: number): Promise<string[]> {
  const out: Buffer[] = [];
  for await (const piece of Readable.from(chunks.map((chunk) => Buffer.from(chunk))).pipe(capMessages(maxBytes)))
    out.push(piece as Buffer);
  return Buffer.concat(out).toString().split('\0').slice(0, -1);
}

const session = ',"sessionId":"S1"}';

describe('the DevTools pipe, capped', () => {
  it('passes messages within the bound as they were, however the pipe splits them', async () => {
    const messages = ['{"id":1,"result":{}}', `{"method":"Page.loadEventFired","params":{"timestamp":1}${session}`];
    const joined = messages.map((message) => `${message}\0`).join('');
    expect(await through([joined], 100)).toEqual(messages);
    expect(await through(joined.split(''), 100)).toEqual(messages);
  });

  it('turns an answer over the bound into an error answer to the same call, and keeps what follows', async () => {
    const big = `{"id":7,"result":{"value":"${'x'.repeat(5_000)}"}${session}`;
    const pieces = [big.slice(0, 1_000), big.slice(1_000, 4_500), `${big.slice(4_500)}\0{"id":8,"result":{}}\0`];
    const [first, second] = await through(pieces, 1_000);
    expect(JSON.parse(first!)).toEqual({
      id: 7,
      error: { code: -32000, message: "the browser's answer was over 1000 bytes" },
      sessionId: 'S1',
    });
    expect(second).toBe('{"id":8,"result":{}}');
  });

  it("stands in for a script's scriptParsed over the bound as a page script, and drops other events over it", async () => {
    const parsed = `{"method":"Debugger.scriptParsed","params":{"scriptId":"7","url":"${'x'.repeat(5_000)}","executionContextAuxData":{"isDefault":false}}${session}`;
    const other = `{"method":"Network.requestWillBeSent","params":{"postData":"${'x'.repeat(5_000)}"}${session}`;
    const out = await through([`${parsed}\0${other}\0{"id":9,"result":{}}\0`], 1_000);
    expect(out.map((message) => JSON.parse(message) as unknown)).toEqual([
      {
        method: 'Debugger.scriptParsed',
        params: { scriptId: '', url: '', executionContextAuxData: { isDefault: true } },
        sessionId: 'S1',
      },
      { id: 9, result: {} },
    ]);
  });
});
