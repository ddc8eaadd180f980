import { html, type Html } from './html.js';

/** The pages' own navigation, in the order of the header. */
const NAV = [
  { path: '/', label: 'Search' },
  { path: '/changes', label: 'Changes' },
  { path: '/syncs', label: 'Syncs' },
] as const;

export type NavPath = (typeof NAV)[number]['path'];

export interface PageParts {
  title: string;
  /** The header link marked as the current page, if any. */
  current?: NavPath;
  /** Extra `<link>`s of the head (an Atom feed of the view). */
  head?: Html;
  main: Html;
}

/**
 * Every page's frame: landmarks (header, nav, main, footer), a skip link,
 * the page's stylesheet and script from /static/ (the CSP allows nothing
 * inline), and a viewport for phones.
 */
export function layout(parts: PageParts): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · tenders</title>
<link rel="stylesheet" href="/static/page.css">
<script src="/static/page.js" defer></script>
${parts.head}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<nav aria-label="Pages"><ul>
${NAV.map((item) => html`<li><a href="${item.path}"${item.path === parts.current ? html` aria-current="page"` : false}>${item.label}</a></li>`)}
</ul></nav>
</header>
<main id="main" tabindex="-1">
${parts.main}
</main>
<footer class="site"><p>Served from the local copy that <code>tenders sync</code> keeps.</p></footer>
</body>
</html>
`;
}
