/**
 * Text broken into lines of at most `width` columns at spaces, so a terminal
 * never breaks a word; a word longer than the width stays whole on its line.
 * Later lines start with `indent`.
 */
export function wrapWords(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (line !== '' && next.length > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  return lines;
}
