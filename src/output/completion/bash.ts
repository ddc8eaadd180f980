import { shellQuote } from '../terminal/shell.js';
import { listSaved, pathKey, type CompletionModel } from './model.js';

/**
 * A bash completion function for the model. Tables (case statements keyed by
 * the command path) say what each command has; one function walks the words
 * typed so far to find the command, then offers its subcommands, its flags,
 * or the values of the flag being given (`--format c`, `--format=c`).
 */
export function bashScript(model: CompletionModel): string {
  const fn = `_${model.program.replace(/\W/g, '_')}`;
  const table = (name: string, rows: [string, string][]) =>
    `${fn}_${name}() {\n  case "$*" in\n${rows.map(([key, value]) => `    ${shellQuote(key)}) echo ${shellQuote(value)} ;;\n`).join('')}  esac\n}\n`;
  const commands = model.commands;
  const byOption = commands.flatMap((cmd) => cmd.options.flatMap((option) => option.names.map((name) => ({ cmd, option, name }))));
  return `# ${model.program} completion for bash: eval "$(${model.program} completion bash)" in ~/.bashrc
${table('commands', commands.filter((cmd) => cmd.subcommands.length).map((cmd) => [pathKey(cmd), cmd.subcommands.map((sub) => sub.name).join(' ')]))}
${table('flags', commands.map((cmd) => [pathKey(cmd), cmd.options.flatMap((option) => option.names).join(' ')]))}
# A command's positionals, or <sync> / <watch>: the saved names, which ${fn}_saved asks ${model.program} for.
${table('positionals', commands.filter((cmd) => cmd.positionals.length || cmd.saved).map((cmd) => [pathKey(cmd), cmd.saved ? `<${cmd.saved}>` : cmd.positionals.join(' ')]))}
# The values a flag takes: a list, <file> for file names, <sync> or <watch> for saved names, <any> for anything; nothing for a flag without a value.
${table(
  'values',
  byOption
    .filter(({ option }) => option.takesValue)
    .map(({ cmd, option, name }) => [`${pathKey(cmd)} ${name}`, option.file ? '<file>' : option.saved ? `<${option.saved}>` : option.choices.length ? option.choices.join(' ') : '<any>']),
)}
# The saved syncs or watches ($1), as ${model.program} lists them: none when there is no copy or state yet.
${fn}_saved() {
  case "$1" in
    '<sync>') ${listSaved(model.program, 'sync')} ;;
    '<watch>') ${listSaved(model.program, 'watch')} ;;
    '<profile>') ${listSaved(model.program, 'profile')} ;;
    *) echo "$1" ;;
  esac
}

${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" command="" word values option="" prefix="" i
  COMPREPLY=()
  ((COMP_CWORD > 0)) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # The command typed so far: words that name a subcommand, flags and their values skipped.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if [[ "\${COMP_WORDS[i+1]}" == "=" ]]; then ((i += 2)); continue; fi # --flag = value (bash splits at =)
    case "$word" in
      --*=*) ;;
      -*) [[ -n "$(${fn}_values "$command" "$word")" ]] && ((i++)) ;;
      *) [[ " $(${fn}_commands "$command") " == *" $word "* ]] && command="\${command:+$command }$word" ;;
    esac
  done
  # A flag's value: after the flag, or after its =.
  if [[ "$cur" == "=" ]]; then option="$prev" cur=""
  elif [[ "$prev" == "=" ]] && ((COMP_CWORD > 1)); then option="\${COMP_WORDS[COMP_CWORD-2]}"
  elif [[ "$cur" == --*=* ]]; then option="\${cur%%=*}" prefix="\${cur%%=*}=" cur="\${cur#*=}"
  elif [[ "$prev" == -* ]]; then option="$prev"
  fi
  values="$(${fn}_values "$command" "$option")"
  case "$values" in
    '') ;;
    '<any>') return 0 ;;
    '<file>')
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
      return 0 ;;
    *)
      COMPREPLY=($(compgen -P "$prefix" -W "$(${fn}_saved "$values")" -- "$cur"))
      return 0 ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(${fn}_flags "$command")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(${fn}_commands "$command") $(${fn}_saved "$(${fn}_positionals "$command")")" -- "$cur"))
  fi
}
complete -F ${fn} ${model.program}
`;
}
