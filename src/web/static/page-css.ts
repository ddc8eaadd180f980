/**
 * The page's stylesheet, served as /static/page.css (the CSP allows no inline
 * style). System fonts, WCAG AA contrast (text 16:1, links and hints above
 * 4.5:1), a focus ring on everything focusable, and a layout that fits 375 px:
 * the form's fields wrap, wide tables scroll in their own box.
 */
export const PAGE_CSS = `:root{color-scheme:light;--text:#1b1b1b;--muted:#4a4a4a;--link:#0b4fbf;--line:#c8c8c8;--soft:#f3f4f6;--bad:#8b1a1a;--ok:#1f5f2a;--focus:#b35900}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif,"Noto Color Emoji";color:var(--text);background:#fff;overflow-wrap:anywhere}
a{color:var(--link)}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}
.skip:focus{left:.5rem}
header.site,footer.site{background:var(--soft);border-bottom:1px solid var(--line);padding:.25rem 1rem}
footer.site{border-top:1px solid var(--line);border-bottom:0;margin-top:2rem;color:var(--muted);font-size:.875rem}
header.site ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:.5rem 0}
header.site a{font-weight:600;text-decoration:none;padding:.25rem 0}
header.site a[aria-current=page]{text-decoration:underline;text-underline-offset:.3em}
main{display:block;max-width:80rem;margin:0 auto;padding:0 1rem}
main:focus{outline:0}
h1{font-size:1.6rem;margin:1rem 0 .5rem;line-height:1.25}
h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
code{font:.9em/1.4 ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;background:var(--soft);padding:0 .2em;border-radius:3px}
pre{overflow:auto;background:var(--soft);padding:.75rem;border:1px solid var(--line);max-height:40rem}
pre code{background:none;padding:0;white-space:pre-wrap}
form.search,form.changes-form{display:block}
.query{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.query .field{flex:1 1 16rem;margin:0}
fieldset{border:1px solid var(--line);margin:1rem 0 0;padding:.5rem 1rem 1rem;display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.75rem 1rem;min-width:0}
legend{font-weight:600;padding:0 .25rem}
.field{display:flex;flex-direction:column;gap:.15rem;min-width:0}
label{font-weight:600}
.hint{color:var(--muted);font-size:.8rem;line-height:1.3}
input,select,button{font:inherit;color:inherit;max-width:100%}
input,select{border:1px solid #6b6b6b;border-radius:4px;padding:.4rem .5rem;background:#fff;width:100%}
button{background:var(--link);color:#fff;border:1px solid var(--link);border-radius:4px;padding:.45rem 1.1rem;font-weight:600;cursor:pointer}
button:hover{background:#083c92}
.error{border-left:4px solid var(--bad);background:#fdf2f2;padding:.5rem .75rem;color:var(--bad)}
.notice{border-left:4px solid var(--focus);background:#fff7ed;padding:.5rem .75rem}
.count{font-size:1.05rem}
.table-box{overflow-x:auto;border:1px solid var(--line);max-width:100%}
table{border-collapse:collapse;width:100%;min-width:44rem}
caption{text-align:left;padding:.5rem;font-weight:600;color:var(--muted)}
th,td{overflow-wrap:break-word;padding:.45rem .6rem;border-top:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:var(--soft);border-top:0;white-space:nowrap}
td.title{min-width:16rem;max-width:32rem}
table.results td:nth-child(2){min-width:10rem}
.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.countdown{display:inline-block;font-size:.85rem;color:var(--ok);white-space:nowrap}
.countdown.closed{color:var(--bad)}
.pager ul,.downloads ul{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;list-style:none;padding:0}
.pager a{display:inline-block;padding:.4rem .8rem;border:1px solid var(--line);border-radius:4px}
.downloads{border-top:1px solid var(--line);margin-top:1.5rem}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}
dl.summary dt{font-weight:600}
dl.summary dd{margin:0}
dl.fields{margin:0;padding-left:.75rem;border-left:2px solid var(--line)}
dl.fields dt{font-weight:600;margin-top:.3rem}
dl.fields dd{margin:0 0 0 .75rem}
.none{color:var(--muted);font-style:italic}
ol.timeline,ul.changes{list-style:none;padding:0}
ol.timeline li,ul.changes li{border-left:3px solid var(--line);padding:.3rem .75rem;margin:.3rem 0}
.kind{font-weight:700}
.kind-new{color:var(--ok)}
.kind-gone{color:var(--bad)}
.sync{color:var(--muted);font-size:.875rem}
.warn{color:var(--bad)}
details.raw summary{cursor:pointer;color:var(--link);font-weight:600;margin:1rem 0 .5rem}
@media (max-width:40rem){h1{font-size:1.35rem}dl.summary{grid-template-columns:1fr}dl.summary dd{margin-bottom:.4rem}}
`;
