import { describe, expect, it } from 'vitest';
import { webLink } from '../../src/output/formats/web-link.js';

describe('webLink', () => {
  it('takes http and https URLs that parse, as they are', () => {
    for (const url of ['https://tenders.example.org/notices/T-1', 'http://example.org', 'HTTPS://x.example/a?b=1&c=2;d,e#f', 'https://δήμος.example/ά', 'http://[::1]:8080/x']) {
      expect(webLink(url), url).toBe(url);
    }
    expect(webLink(undefined)).toBeUndefined();
  });

  it('leaves out any other scheme, and any URL with whitespace, a control, format or bidi character', () => {
    for (const url of [
      'javascript:alert(1)',
      'JavaScript://x.org/%0aalert(1)',
      'data:text/html,<script>',
      'file:///etc/passwd',
      'mailto:a@b.example',
      '//x.org/a',
      'https://',
      'http://[::1',
      'https://x.org/a b',
      'https://x.org/\r\nX-Evil: 1',
      'https://x.org/\t',
      'https://x.org/\u0000',
      'https://x.org/\u009b',
      'https://x.org/\u202egpj.exe',
      'https://x.org/\u00a0',
      ' https://x.org/',
    ]) {
      expect(webLink(url), JSON.stringify(url)).toBeUndefined();
    }
  });
});
