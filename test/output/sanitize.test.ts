import { describe, expect, it } from 'vitest';
import { sanitizeForTerminal } from '../../src/output/sanitize.js';
import { displayWidth, truncateToWidth } from '../../src/output/text-width.js';

describe('terminal sanitising', () => {
  it('removes escape sequences, control characters and bidi overrides; folds line breaks', () => {
    const hostile = '\u001b[31mRed\u001b[0m \u001b]0;pwned\u0007title\r\nnext\tcol \u009b2J \u202eevil\u0000';
    const clean = sanitizeForTerminal(hostile);
    expect(clean).toBe('Red title next col   evil');
    expect(clean).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });

  it('keeps ordinary Unicode', () => {
    expect(sanitizeForTerminal('Δήμος Αθηναίων — 東京都 🚧')).toBe('Δήμος Αθηναίων — 東京都 🚧');
  });
});

describe('display width', () => {
  it('counts wide characters and emoji as two columns and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('東京')).toBe(4);
    expect(displayWidth('🚧')).toBe(2);
    expect(displayWidth('e\u0301')).toBe(1);
  });

  it('truncates to a width with an ellipsis, never exceeding it', () => {
    expect(truncateToWidth('short', 10)).toBe('short');
    expect(truncateToWidth('a longer title', 8)).toBe('a longe…');
    expect(displayWidth(truncateToWidth('東京都庁舎の改修工事', 7))).toBeLessThanOrEqual(7);
    expect(truncateToWidth('東京都庁舎', 7)).toBe('東京都…');
  });
});
