import { shellQuote } from '../terminal/shell.js';
import { listSaved, pathKey, type CompletionModel } from './model.js';

/**
 * fish completions for the model: one `complete` line per subcommand, flag
 * and value, each under the condition that the words typed so far name its
 * command (found by a walk like the bash script's).
 */
export function fishScript(model: CompletionModel): string {
  const fn = `__${model.program.replace(/\W/g, '_')}`;
  const { program, commands } = model;
  const cases = (rows: [string, string[]][]) =>
    rows.map(([key, values]) => `        case ${shellQuote(key)}\n            printf '%s\\n' ${values.map(shellQuote).join(' ')}\n`).join('');
  const lines: string[] = [];
  for (const cmd of commands) {
    const when = `-n ${shellQuote(`${fn}_is ${shellQuote(pathKey(cmd))}`)}`;
    for (const sub of cmd.subcommands) lines.push(`complete -c ${program} ${when} -a ${shellQuote(sub.name)} -d ${shellQuote(sub.description)}`);
    if (cmd.saved) lines.push(`complete -c ${program} ${when} -a ${shellQuote(`(${fn}_saved ${cmd.saved})`)}`);
    else if (cmd.positionals.length) lines.push(`complete -c ${program} ${when} -a ${shellQuote(cmd.positionals.join(' '))}`);
    for (const option of cmd.options) {
      const names = option.names.map((name) => (name.startsWith('--') ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`)).join(' ');
      const values = option.saved ? `(${fn}_saved ${option.saved})` : option.choices.join(' ');
      const value = !option.takesValue ? '' : option.file ? ' -r -F' : values ? ` -x -a ${shellQuote(values)}` : ' -x';
      lines.push(`complete -c ${program} ${when} ${names} -d ${shellQuote(option.description)}${value}`);
    }
  }
  return `# ${program} completion for fish: ${program} completion fish > ~/.config/fish/completions/${program}.fish

# The values a flag takes (nothing for a flag without a value), for the walk below.
function ${fn}_takes_value --argument-names key
    switch $key
${cases(commands.flatMap((cmd) => cmd.options.filter((option) => option.takesValue).flatMap((option) => option.names.map((name): [string, string[]] => [`${pathKey(cmd)} ${name}`, ['yes']]))))}    end
end

function ${fn}_subcommands --argument-names key
    switch $key
${cases(commands.filter((cmd) => cmd.subcommands.length).map((cmd) => [pathKey(cmd), cmd.subcommands.map((sub) => sub.name)]))}    end
end

# The command the words typed so far name: subcommands, with flags and their values skipped.
function ${fn}_command
    set -l command ''
    set -l skip 0
    for word in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $word
            case '--*=*'
            case '-*'
                if set -q (${fn}_takes_value "$command $word")[1]
                    set skip 1
                end
            case '*'
                if contains -- $word (${fn}_subcommands "$command")
                    set command (string trim -- "$command $word")
                end
        end
    end
    echo $command
end

# The saved syncs or watches, as ${program} lists them (none without a copy or state).
function ${fn}_saved --argument-names kind
    switch $kind
        case sync
            ${listSaved(program, 'sync')}
        case watch
            ${listSaved(program, 'watch')}
        case profile
            ${listSaved(program, 'profile')}
    end
end

function ${fn}_is --argument-names expected
    set -l actual (${fn}_command)
    test "$actual" = "$expected"
end

complete -c ${program} -f
${lines.join('\n')}
`;
}
