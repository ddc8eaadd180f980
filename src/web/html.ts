/**
 * The page's one way to write HTML: the `html` tag escapes every value put
 * into its template unless the value is an `Html` fragment (the result of
 * another `html` template). Service data therefore cannot become markup: a
 * title `<script>` is five characters of text, a quote cannot close an
 * attribute. Nothing else in src/web builds HTML from strings.
 */
const MADE_HERE = Symbol('html');

export class Html {
  readonly #text: string;
  /** Only `html` makes fragments: a caller elsewhere has no token to make one from a string. */
  constructor(token: symbol, text: string) {
    if (token !== MADE_HERE) throw new TypeError('Html fragments are made by the html template tag only');
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/** What may stand in a template: text (escaped), a fragment, a list of them, or nothing (undefined, null, false). */
export type HtmlValue = Html | string | number | readonly HtmlValue[] | undefined | null | false;

const NEEDS_ESCAPE = /[&<>"'\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text as HTML text, safe in element content and in quoted attribute values.
 * C0 and C1 control characters (terminal escapes, NUL, bells) become their
 * visible pictures (␛) or U+FFFD, so they show as what they are instead of
 * vanishing or breaking the parse; tab and line breaks stay.
 */
export function escapeText(text: string): string {
  // Most values (dates, codes, amounts, plain titles) need nothing: one test, no copy.
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text
    .replace(/[&<>"']/g, (c) => ENTITIES[c]!)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => String.fromCodePoint(c === '\u007f' ? 0x2421 : 0x2400 + c.codePointAt(0)!))
    .replace(/[\u0080-\u009f]/g, '\ufffd');
}

function render(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeText(String(value));
}

/** The template tag: literal parts are the page's own markup, every value is escaped unless it is Html. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(MADE_HERE, out);
}

/**
 * Text from the service in a bidi isolate: a title in Arabic, or one that
 * carries right-to-left overrides, cannot reorder the text around it.
 */
export function data(value: string | number | undefined): Html {
  return value === undefined ? html`` : html`<bdi>${value}</bdi>`;
}
