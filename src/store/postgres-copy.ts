/** One field of COPY's text format (`\N` for NULL): backslashes and the three control characters that end a field or a row escaped. */
export function copyField(value: string | number | null): string {
  if (value === null) return '\\N';
  const text = String(value);
  // Most fields hold none of the four: testing first spares a replace per field.
  return COPY_SPECIAL.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : text;
}

const COPY_SPECIAL = /[\\\t\n\r]/;
