import { data, html, type Html } from './html.js';
import { countdown, dateText, machineDate } from './when.js';

/** A date as a `<time>`, text that is no date as it is. */
export function when(value: string | undefined): Html | undefined {
  if (value === undefined) return undefined;
  const machine = machineDate(value);
  return machine === undefined ? data(value) : html`<time datetime="${machine}">${dateText(value)}</time>`;
}

/** A deadline and what is left of it; the script keeps the countdown current. */
export function deadlineCell(deadline: string | undefined, now: Date): Html | undefined {
  const left = countdown(deadline, now);
  if (left === undefined) return when(deadline);
  return html`${when(deadline)} <span class="countdown${left === 'closed' ? ' closed' : ''}" data-deadline="${deadline}">${left}</span>`;
}
