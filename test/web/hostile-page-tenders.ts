/**
 * Tenders whose text tries to become markup on a page: script and img tags,
 * a javascript: link, quotes that would close an attribute, bidi overrides,
 * a 2 000-character title, emoji. Each planted script sets window.__pwned,
 * which a browser test reads back.
 */
export const PLANTED = {
  script: '<script>window.__pwned = "title"</script> Roads',
  img: 'Bridges <img src=x onerror="window.__pwned = \'img\'">',
  quote: '"><svg onload="window.__pwned=\'svg\'"> \'single\' & "double"',
  bidi: 'Invoice \u202Egnp.exe\u202C for \u2067عربي\u2069 works',
  emoji: 'Ambulances 🚑 and roadworks 🚧 in 東京',
  javascriptUrl: 'javascript:window.__pwned="url"',
  long: `${'Framework agreement for consultancy services '.repeat(45).slice(0, 1997)}END`,
} as const;

/** Five tenders in the service's shape, published on the sandbox's newest days so they lead the default order. */
export function plantedTenders(): Record<string, unknown>[] {
  const base = (n: number, title: string) => ({
    id: `P-${n}`,
    title,
    status: 'open',
    publicationDate: '2026-12-01',
    deadline: '2027-03-01T12:00:00Z',
    buyer: { id: `ORG-P${n}`, name: n === 1 ? '<b onmouseover="window.__pwned=1">Evil GmbH</b>' : 'Stadt Köln', country: 'DEU' },
    estimatedValue: { amount: 1000 * n, currency: 'EUR', amountEur: 1000 * n },
    url: n === 1 ? PLANTED.javascriptUrl : `https://tenders.example.org/notices/P-${n}`,
  });
  return [base(1, PLANTED.script), base(2, PLANTED.img), base(3, PLANTED.quote), base(4, PLANTED.bidi), base(5, PLANTED.emoji), base(6, PLANTED.long)];
}
