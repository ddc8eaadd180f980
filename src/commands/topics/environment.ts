import { Help } from 'commander';
import { ENVIRONMENT } from '../../environment.js';
import type { HelpTopic } from './topic.js';

/** Every variable the CLI reads, as `gh help environment` lists its own. */
export const environmentTopic: HelpTopic = {
  name: 'environment',
  summary: 'the environment variables tenders reads',
  text: (width) => {
    const help = new Help();
    help.helpWidth = width;
    const terms = ENVIRONMENT.map((variable) => variable.names.join(', '));
    const termWidth = Math.max(...terms.map((term) => term.length));
    const items = ENVIRONMENT.map((variable, i) => help.formatItem(terms[i]!, termWidth, variable.description, help));
    return `Environment variables tenders reads (flags win over them):\n\n${items.join('\n')}\n`;
  },
};
