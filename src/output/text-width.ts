/** Terminal column widths of text: wide East Asian characters and emoji take two columns. */

const ZERO_WIDTH = /[\p{Mn}\p{Me}\u200b-\u200d\ufe00-\ufe0f]/u;
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]|\p{Extended_Pictographic}/u;

function charWidth(char: string): number {
  if (ZERO_WIDTH.test(char)) return 0;
  if (char.codePointAt(0)! < 0x1100) return 1;
  return WIDE.test(char) ? 2 : 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}

/** `text` cut to at most `width` columns, ending in an ellipsis when cut. */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = charWidth(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}
