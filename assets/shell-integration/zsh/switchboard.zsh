# Switchboard shell integration for zsh: the hooks. Loaded by our .zshrc after the user's.
# Reports prompts, commands, exit codes and the cwd with OSC 633 sequences. Everything we define
# starts with __sb_ and uses builtins.

# Recursion guard: load once per shell.
if [[ -z "${__sb_loaded:-}" ]]; then
typeset -g __sb_loaded=1
typeset -g __sb_command_running=0
typeset -g __sb_wrapped_ps1=""

# Escape a value for OSC 633 (VS Code's rules): backslash doubled, ';' and control chars as \xNN.
__sb_escape() {
  builtin local value="$1"
  value="${value//\\/\\\\}"
  value="${value//;/\\x3b}"
  value="${value//$'\n'/\\x0a}"
  value="${value//$'\r'/\\x0d}"
  value="${value//$'\e'/\\x1b}"
  value="${value//$'\a'/\\x07}"
  value="${value//$'\t'/\\x09}"
  REPLY="$value"
}

# First precmd hook: sees the exit status of the user's command.
__sb_precmd_status() {
  builtin local code=$?
  if (( __sb_command_running )); then
    builtin printf '\e]633;D;%s;%s\a' "$code" "$__sb_nonce"
    __sb_command_running=0
  fi
  __sb_escape "$PWD"
  builtin printf '\e]633;P;Cwd=%s\a' "$REPLY"
}

# Last precmd hook: themes rebuild PS1 in their own precmd, so wrap whatever it is now.
__sb_precmd_prompt() {
  if [[ "$PS1" != "$__sb_wrapped_ps1" ]]; then
    __sb_wrapped_ps1="%{"$'\e]633;A;'"${__sb_nonce}"$'\a'"%}${PS1}%{"$'\e]633;B;'"${__sb_nonce}"$'\a'"%}"
    PS1="$__sb_wrapped_ps1"
  fi
}

__sb_preexec() {
  # $1 is the line as typed (empty when history is off); $3 the full text being run.
  builtin local line="$1"
  [[ -z "$line" ]] && line="$3"
  __sb_escape "$line"
  builtin printf '\e]633;E;%s;%s\a\e]633;C;%s\a' "$REPLY" "$__sb_nonce" "$__sb_nonce"
  __sb_command_running=1
}

typeset -ga precmd_functions preexec_functions
precmd_functions=(__sb_precmd_status ${precmd_functions[@]} __sb_precmd_prompt)
preexec_functions+=(__sb_preexec)
fi
