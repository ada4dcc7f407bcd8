# Switchboard shell integration for bash.
#
# Started as `bash --init-file <this file> -i`: bash then reads this file instead of ~/.bashrc,
# so we first load the user's own startup files exactly as bash would have, and only then add
# hooks that report prompts, commands, exit codes and the cwd with OSC 633 sequences.
# Everything we define starts with __sb_ and uses builtins, so user aliases/functions named
# like common commands cannot interfere.

# Recursion guard: load once per shell.
if [[ -n "${__sb_loaded:-}" ]]; then
	builtin return 0 2>/dev/null || true
else
__sb_loaded=1

# Read the per-terminal nonce and remove it from the environment before any user code runs, so
# programs started from this shell cannot see it (it proves a command line came from us).
__sb_nonce="${SWITCHBOARD_NONCE:-}"
builtin unset SWITCHBOARD_NONCE

# --- the user's startup files -------------------------------------------------------------
# /etc/bash.bashrc is read by bash itself before --init-file (Debian's SYS_BASHRC), so only the
# per-user files are ours to load. A login shell reads the profile files instead.
if [[ "${SWITCHBOARD_BASH_LOGIN:-}" == 1 ]]; then
	builtin unset SWITCHBOARD_BASH_LOGIN
	if [[ -r /etc/profile ]]; then builtin source /etc/profile; fi
	if [[ -r "$HOME/.bash_profile" ]]; then
		builtin source "$HOME/.bash_profile"
	elif [[ -r "$HOME/.bash_login" ]]; then
		builtin source "$HOME/.bash_login"
	elif [[ -r "$HOME/.profile" ]]; then
		builtin source "$HOME/.profile"
	fi
else
	if [[ -r "$HOME/.bashrc" ]]; then builtin source "$HOME/.bashrc"; fi
fi

# --- helpers ------------------------------------------------------------------------------

# Escape a value for OSC 633 (VS Code's rules): backslash doubled, ';' and control chars as \xNN.
# Sets __sb_escaped instead of printing, so callers need no subshell.
__sb_escape() {
	__sb_escaped="${1//\\/\\\\}"
	__sb_escaped="${__sb_escaped//;/\\x3b}"
	__sb_escaped="${__sb_escaped//$'\n'/\\x0a}"
	__sb_escaped="${__sb_escaped//$'\r'/\\x0d}"
	__sb_escaped="${__sb_escaped//$'\e'/\\x1b}"
	__sb_escaped="${__sb_escaped//$'\a'/\\x07}"
	__sb_escaped="${__sb_escaped//$'\t'/\\x09}"
}

__sb_command_running=0
__sb_at_prompt=0
__sb_last_history_number=""
__sb_prompt_wrapped=""
__sb_user_ps1=""
__sb_status=0
__sb_command_line=""
__sb_bash_command=""

# The command line being executed. `history 1` gives the whole line (pipelines, lists). When the
# line did not enter history (the number did not move: ignorespace/ignoredups, history off) it is
# either a repeat of the previous line (if that line contains the current simple command) or a
# line we cannot see, for which BASH_COMMAND (the first simple command) is the best we have.
__sb_current_command_line() {
	builtin local HISTTIMEFORMAT=''
	builtin local entry
	entry="$(builtin history 1)"
	if [[ "$entry" =~ ^\ *([0-9]+)[*\ ]\ (.*)$ ]] && [[ "${BASH_REMATCH[1]}" != "$__sb_last_history_number" ]]; then
		__sb_last_history_number="${BASH_REMATCH[1]}"
		__sb_command_line="${BASH_REMATCH[2]}"
	elif [[ -n "$__sb_command_line" && "$__sb_command_line" == *"$__sb_bash_command"* ]]; then
		: # a repeat of the previous line
	else
		__sb_command_line="$__sb_bash_command"
	fi
}

__sb_preexec() {
	__sb_current_command_line
	__sb_escape "$__sb_command_line"
	builtin printf '\e]633;E;%s;%s\a\e]633;C;%s\a' "$__sb_escaped" "$__sb_nonce" "$__sb_nonce"
	__sb_command_running=1
}

# PS1 is wrapped with the prompt marks each time it changed, because prompt frameworks rebuild
# it from PROMPT_COMMAND.
__sb_wrap_prompt() {
	if [[ "$PS1" != "$__sb_prompt_wrapped" ]]; then
		__sb_user_ps1="$PS1"
		__sb_prompt_wrapped='\[\e]633;A;'"$__sb_nonce"'\a\]'"$__sb_user_ps1"'\[\e]633;B;'"$__sb_nonce"'\a\]'
		PS1="$__sb_prompt_wrapped"
	fi
}

__sb_precmd() {
	builtin local status="$__sb_status"
	if [[ "$__sb_command_running" == 1 ]]; then
		builtin printf '\e]633;D;%s;%s\a' "$status" "$__sb_nonce"
		__sb_command_running=0
	fi
	__sb_escape "$PWD"
	builtin printf '\e]633;P;Cwd=%s\a' "$__sb_escaped"
	__sb_wrap_prompt
}

# The DEBUG trap fires before every simple command, including those of PROMPT_COMMAND. Only the
# first one after the prompt was drawn is the user's command; the first command of
# PROMPT_COMMAND itself (an empty line was entered) is not.
__sb_debug_trap() {
	if [[ "$__sb_at_prompt" == 1 ]]; then
		__sb_at_prompt=0
		if [[ "$BASH_COMMAND" != "__sb_prompt_command_start"* && -z "${COMP_LINE:-}" ]]; then
			__sb_bash_command="$BASH_COMMAND"
			__sb_preexec
		fi
	fi
}

# Both return the user's exit status, so the rest of PROMPT_COMMAND and PS1 still see it in $?.
__sb_prompt_command_start() {
	__sb_status="$1"
	__sb_precmd
	builtin return "$__sb_status"
}

__sb_prompt_command_end() {
	__sb_at_prompt=1
	builtin return "$__sb_status"
}

# --- install ------------------------------------------------------------------------------

# Keep a DEBUG trap the user set up, and run it after ours.
__sb_user_debug_trap="$(builtin trap -p DEBUG)"
if [[ "$__sb_user_debug_trap" =~ ^trap\ --\ \'(.*)\'\ DEBUG$ ]]; then
	__sb_user_debug_trap="${BASH_REMATCH[1]//\'\\\'\'/\'}"
else
	__sb_user_debug_trap=""
fi
if [[ -n "$__sb_user_debug_trap" ]]; then
	builtin trap '__sb_debug_trap; builtin eval "$__sb_user_debug_trap"' DEBUG
else
	builtin trap '__sb_debug_trap' DEBUG
fi

# Ours first (it must see $? of the user's command) and last (the prompt is about to show).
if [[ "$(builtin declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
	PROMPT_COMMAND=('__sb_prompt_command_start "$?"' "${PROMPT_COMMAND[@]}" '__sb_prompt_command_end')
elif [[ -n "${PROMPT_COMMAND:-}" ]]; then
	PROMPT_COMMAND='__sb_prompt_command_start "$?"'$'\n'"$PROMPT_COMMAND"$'\n''__sb_prompt_command_end'
else
	PROMPT_COMMAND='__sb_prompt_command_start "$?"'$'\n''__sb_prompt_command_end'
fi

fi
