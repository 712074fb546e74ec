/** The ages `pdfrender status` prints: two largest units, the second left out when zero. */
import { describe, expect, it } from 'vitest';
import { humanDuration } from '../src/cli/human-duration.js';

describe('humanDuration', () => {
  it('says a span in its two largest units', () => {
    expect(
      [0, 999, 1000, 59_999, 192_000, 3_600_000, 3_660_000, 5_400_000, 86_400_000, 90_061_000, -5_000].map(
        humanDuration,
      ),
    ).toEqual(['0 s', '0 s', '1 s', '59 s', '3 m 12 s', '1 h', '1 h 1 m', '1 h 30 m', '1 d', '1 d 1 h', '0 s']);
  });
});
