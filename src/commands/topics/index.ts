import { configTopic } from './config.js';
import { environmentTopic } from './environment.js';
import { exitCodesTopic } from './exit-codes.js';
import { filesTopic } from './files.js';
import { formatsTopic } from './formats.js';
import type { HelpTopic } from './topic.js';

/** The help topics, `tenders help NAME`: a new one is a file beside these and a line here. */
export const HELP_TOPICS: readonly HelpTopic[] = [configTopic, environmentTopic, exitCodesTopic, filesTopic, formatsTopic];
