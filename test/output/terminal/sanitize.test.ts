import { describe, expect, it } from 'vitest';
import { escapeControls, neutralizeForTerminal, sanitizeForTerminal } from '../../../src/output/terminal/sanitize.js';

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

describe('neutralising for a terminal', () => {
  const hostile = '\u001b[31mRed\u001b[0m \u001b]0;pwned\u0007 a\r\nb\tc \u009b2J \u007f \u202eevil\u0000 Δήμος 東京 🚧';

  it('stderr lines: every control character spelled out, one line, the rest as it was', () => {
    expect(escapeControls(hostile)).toBe('\\x1b[31mRed\\x1b[0m \\x1b]0;pwned\\x07 a\\r\\nb\\tc \\x9b2J \\x7f \\u202eevil\\x00 Δήμος 東京 🚧');
    expect(escapeControls('plain text, 1–25 of 10,000+')).toBe('plain text, 1–25 of 10,000+');
  });

  it('CSV: line breaks and tabs kept, everything else spelled out', () => {
    expect(neutralizeForTerminal(hostile, false)).toBe('\\x1b[31mRed\\x1b[0m \\x1b]0;pwned\\x07 a\\r\nb\tc \\x9b2J \\x7f \\u202eevil\\x00 Δήμος 東京 🚧');
  });

  it('JSON: what JSON.stringify leaves raw gets JSON escapes, so it parses to the very same value', () => {
    const text = JSON.stringify({ title: hostile });
    const shown = neutralizeForTerminal(text, true);
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(JSON.parse(shown)).toEqual({ title: hostile });
  });
});
