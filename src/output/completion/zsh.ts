import { shellQuote } from '../terminal/shell.js';
import { listSaved, pathKey, type CompletionModel } from './model.js';

/**
 * A zsh completion function for the model, with descriptions: for an fpath
 * directory (`#compdef`) or sourced (it calls compdef itself). Tables set
 * `reply` for a command path; `_tenders` walks the words typed so far as
 * the bash script does.
 */
export function zshScript(model: CompletionModel): string {
  const fn = `_${model.program.replace(/\W/g, '_')}`;
  const described = (name: string, description: string) => shellQuote(`${name.replaceAll(':', '\\:')}:${description.replace(/\s+/g, ' ')}`);
  const table = (name: string, rows: [string, string[]][]) =>
    `${fn}_${name}() {\n  reply=()\n  case "$*" in\n${rows.map(([key, values]) => `    (${shellQuote(key)}) reply=(${values.join(' ')}) ;;\n`).join('')}  esac\n}\n`;
  const commands = model.commands;
  return `#compdef ${model.program}
# ${model.program} completion for zsh: ${model.program} completion zsh > "\${fpath[1]}/_${model.program}", or source <(${model.program} completion zsh) in ~/.zshrc
${table('commands', commands.filter((cmd) => cmd.subcommands.length).map((cmd) => [pathKey(cmd), cmd.subcommands.map((sub) => described(sub.name, sub.description))]))}
${table('flags', commands.map((cmd) => [pathKey(cmd), cmd.options.flatMap((option) => option.names.map((name) => described(name, option.description)))]))}
# A command's positionals, or <sync> / <watch>: the saved names, which ${fn}_saved asks ${model.program} for.
${table('positionals', commands.filter((cmd) => cmd.positionals.length || cmd.saved).map((cmd) => [pathKey(cmd), cmd.saved ? [shellQuote(`<${cmd.saved}>`)] : cmd.positionals.map(shellQuote)]))}
# reply=(<sync>) or (<watch>) becomes the saved syncs or watches, as ${model.program} lists them (none without a copy or state).
${fn}_saved() {
  case $reply[1] in
    ('<sync>') reply=(\${(f)"$(${listSaved(model.program, 'sync')})"}) ;;
    ('<watch>') reply=(\${(f)"$(${listSaved(model.program, 'watch')})"}) ;;
    ('<profile>') reply=(\${(f)"$(${listSaved(model.program, 'profile')})"}) ;;
  esac
}
# The values a flag takes: a list, <file> for file names, <sync> or <watch> for saved names, <any> for anything; nothing for a flag without a value.
${table(
  'values',
  commands.flatMap((cmd) =>
    cmd.options
      .filter((option) => option.takesValue)
      .flatMap((option) =>
        option.names.map((name): [string, string[]] => [
          `${pathKey(cmd)} ${name}`,
          option.file ? ["'<file>'"] : option.saved ? [shellQuote(`<${option.saved}>`)] : option.choices.length ? option.choices.map(shellQuote) : ["'<any>'"],
        ]),
      ),
  ),
)}
${fn}() {
  local command="" word option="" i
  local -a reply values subcommands
  # The command typed so far: words that name a subcommand, flags and their values skipped.
  for (( i = 2; i < CURRENT; i++ )); do
    word=$words[i]
    case $word in
      (--*=*) ;;
      (-*) ${fn}_values "$command" "$word"; (( $#reply )) && (( i++ )) ;;
      (*) ${fn}_commands "$command"; (( \${reply[(I)\${(b)word}:*]} )) && command="\${command:+$command }$word" ;;
    esac
  done
  # A flag's value: after the flag, or after its =.
  if [[ $PREFIX == --*=* ]]; then
    option=\${PREFIX%%=*}
    compset -P '*='
  elif [[ $words[CURRENT-1] == -* ]]; then
    option=$words[CURRENT-1]
  fi
  if [[ -n $option ]]; then
    ${fn}_values "$command" "$option"
    values=("\${reply[@]}")
    case $values[1] in
      ('') ;;
      ('<any>') return 0 ;;
      ('<file>') _files; return ;;
      ('<sync>'|'<watch>'|'<profile>') ${fn}_saved; compadd -- "\${reply[@]}"; return ;;
      (*) compadd -- "\${values[@]}"; return ;;
    esac
  fi
  if [[ $PREFIX == -* ]]; then
    ${fn}_flags "$command"
    _describe 'flag' reply
    return
  fi
  ${fn}_commands "$command"
  subcommands=("\${reply[@]}")
  (( $#subcommands )) && _describe 'command' subcommands
  ${fn}_positionals "$command"
  ${fn}_saved
  (( $#reply )) && compadd -- "\${reply[@]}"
  return 0
}

if [[ "\${funcstack[1]}" == "${fn}" ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${model.program}
fi
`;
}
