/** Whether a string's UTF-8 is longer than `bytes`: measured only when its length could make it so (a UTF-16 unit is at most 3 bytes). */
export function utf8Longer(text: string, bytes: number): boolean {
  return text.length * 3 > bytes && Buffer.byteLength(text) > bytes;
}
