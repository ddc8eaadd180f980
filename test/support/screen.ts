/**
 * What a terminal shows after `raw` was written to it: carriage returns,
 * cursor moves and line clears applied (the sequences ora and readline use),
 * colours and modes dropped. Lines without trailing blanks; no blank lines at the end.
 */
export function screen(raw: string): string {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => (lines[row] ??= []);
  const sequence = /^\u001b\[(\??)([\d;]*)([A-Za-z])/;
  for (let i = 0; i < raw.length; ) {
    const match = raw[i] === '\u001b' ? sequence.exec(raw.slice(i)) : null;
    if (match) {
      i += match[0].length;
      const [, privateMode, params, command] = match;
      if (privateMode) continue; // cursor visibility, synchronized output
      const n = Number(params || '0');
      if (command === 'G') col = Math.max(n, 1) - 1;
      else if (command === 'A') row = Math.max(0, row - Math.max(n, 1));
      else if (command === 'B') row += Math.max(n, 1);
      else if (command === 'C') col += Math.max(n, 1);
      else if (command === 'D') col = Math.max(0, col - Math.max(n, 1));
      else if (command === 'K') {
        if (n === 0) line().length = col;
        else if (n === 1) line().fill(' ', 0, col + 1);
        else lines[row] = [];
      }
      continue; // SGR (m) and the rest: no effect on the text
    }
    const char = [...raw.slice(i, i + 2)][0]!;
    i += char.length;
    if (char === '\n') {
      row++;
      col = 0;
      line();
    } else if (char === '\r') col = 0;
    else {
      const cells = line();
      while (cells.length < col) cells.push(' ');
      cells[col++] = char;
    }
  }
  const text = Array.from(lines, (cells) => (cells ?? []).join('').trimEnd());
  while (text.length > 0 && text.at(-1) === '') text.pop();
  return text.join('\n');
}
