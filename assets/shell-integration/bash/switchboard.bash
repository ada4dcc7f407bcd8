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
__sb_ps0_wrapped=""
__sb_status=0
__sb_command_line=""
__sb_bash_command=""
# Set by PS0's arithmetic when bash has read a command line: 3 when the line entered history (PS0
# prints its E mark), 1 when it did not (the DEBUG trap names it); 2 once the DEBUG trap saw it.
__sb_line_read=0
# $HISTCMD when the prompt was drawn. While PS0 expands, HISTCMD has moved past it iff the line
# just read entered history (inside the command's DEBUG trap it has a different meaning).
__sb_prompt_histcmd=""
__sb_ps0_ours='${__sb_ps0_anchor:$((__sb_line_read=HISTCMD>__sb_prompt_histcmd?3:1,0)):0}$(__sb_ps0_marks)'
# A non-empty value, so that ${__sb_ps0_anchor:OFFSET:0} evaluates OFFSET (bash skips it for an
# unset or empty parameter) and expands to nothing.
__sb_ps0_anchor=.

# Why PS0 and not only the DEBUG trap: for a line that starts with a subshell, `(cd app && make)`,
# the DEBUG trap never fires in the shell itself (subshells do not inherit it), so nothing would
# mark the command's start or end and `exec` would wait for ever. PS0 (bash >= 4.4) is expanded
# once for every command line bash has read, whatever its shape, and never for an empty line. Its
# arithmetic runs in the shell itself (no fork) and records that a line was read; its command
# substitution prints the E and C marks. Prompt expansion needs `promptvars` (on by default).
__sb_ps0_usable() {
	[[ "${BASH_VERSINFO[0]}" -gt 4 || ( "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 ) ]] && builtin shopt -q promptvars
}

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

# A line that did not enter history, given its first simple command ($1): a repeat of the last
# history entry (ignoredups) if that entry contains it, else a line we cannot see (ignorespace,
# history off), for which the first simple command is the best we have.
__sb_unrecorded_command_line() {
	builtin local HISTTIMEFORMAT=''
	builtin local entry
	entry="$(builtin history 1)"
	if [[ "$entry" =~ ^\ *[0-9]+[*\ ]\ (.*)$ && "${BASH_REMATCH[1]}" == *"$1"* ]]; then
		__sb_command_line="${BASH_REMATCH[1]}"
	else
		__sb_command_line="$1"
	fi
}

# Runs in PS0's command substitution (a subshell of the shell that read the line): prints the
# command line (E) when the line entered history, then the start of its output (C). bash prints
# PS0 to its stderr: after `exec 2>/dev/null` the marks go straight to the terminal instead.
__sb_ps0_marks() {
	if [[ ! -t 2 ]] && { : >/dev/tty; } 2>/dev/null; then
		__sb_ps0_mark_text >/dev/tty
	else
		__sb_ps0_mark_text
	fi
}

__sb_ps0_mark_text() {
	if [[ "$__sb_line_read" == 3 ]]; then
		builtin local HISTTIMEFORMAT=''
		builtin local entry
		entry="$(builtin history 1)"
		if [[ "$entry" =~ ^\ *[0-9]+[*\ ]\ (.*)$ ]]; then
			__sb_escape "${BASH_REMATCH[1]}"
			builtin printf '\e]633;E;%s;%s\a' "$__sb_escaped" "$__sb_nonce"
		fi
	fi
	builtin printf '\e]633;C;%s\a' "$__sb_nonce"
}

__sb_preexec() {
	__sb_current_command_line
	__sb_escape "$__sb_command_line"
	builtin printf '\e]633;E;%s;%s\a\e]633;C;%s\a' "$__sb_escaped" "$__sb_nonce" "$__sb_nonce"
	__sb_command_running=1
}

# PS1 is wrapped with the prompt marks each time it changed, because prompt frameworks rebuild
# it from PROMPT_COMMAND. PS0 likewise gets our marks after the user's PS0 (which is not output).
__sb_wrap_prompt() {
	if [[ "$PS1" != "$__sb_prompt_wrapped" ]]; then
		__sb_user_ps1="$PS1"
		__sb_prompt_wrapped='\[\e]633;A;'"$__sb_nonce"'\a\]'"$__sb_user_ps1"'\[\e]633;B;'"$__sb_nonce"'\a\]'
		PS1="$__sb_prompt_wrapped"
	fi
	if __sb_ps0_usable; then
		if [[ -z "$__sb_ps0_wrapped" || "${PS0-}" != "$__sb_ps0_wrapped" ]]; then
			__sb_ps0_wrapped="${PS0-}$__sb_ps0_ours"
			PS0="$__sb_ps0_wrapped"
		fi
	elif [[ -n "$__sb_ps0_wrapped" && "${PS0-}" == "$__sb_ps0_wrapped" ]]; then
		# promptvars was turned off: our PS0 would print itself literally.
		PS0="${PS0%"$__sb_ps0_ours"}"
		__sb_ps0_wrapped=""
	fi
}

__sb_precmd() {
	builtin local status="$__sb_status"
	if [[ "$__sb_line_read" != 0 ]]; then
		# PS0 printed C for the line just run: whatever ran, its end is now.
		__sb_command_running=1
		__sb_line_read=0
	elif [[ "$__sb_command_running" != 1 && -n "$__sb_prompt_histcmd" ]] && ((HISTCMD > __sb_prompt_histcmd)) && ! __sb_ps0_usable; then
		# Without PS0 (bash < 4.4, promptvars off) a line that started with a subshell ran without
		# the DEBUG trap seeing it. Its output cannot be placed any more, but it did run: report it.
		__sb_bash_command=""
		__sb_preexec
	fi
	if [[ "$__sb_command_running" == 1 ]]; then
		builtin printf '\e]633;D;%s;%s\a' "$status" "$__sb_nonce"
		__sb_command_running=0
	fi
	__sb_escape "$PWD"
	builtin printf '\e]633;P;Cwd=%s\a' "$__sb_escaped"
}

# The DEBUG trap fires before every simple command, including those of PROMPT_COMMAND. Only the
# first one after the prompt was drawn is the user's command; the first command of
# PROMPT_COMMAND itself (an empty line was entered, or the line was a subshell) is not.
__sb_debug_trap() {
	if [[ "$__sb_at_prompt" == 1 ]]; then
		if [[ "$BASH_COMMAND" == "__sb_prompt_command_start"* || -n "${COMP_LINE:-}" ]]; then
			[[ "$BASH_COMMAND" == "__sb_prompt_command_start"* ]] && __sb_at_prompt=0
			builtin return
		fi
		if [[ "$__sb_line_read" == 1 ]]; then
			# PS0 printed C already. Its E is missing when the line did not enter history
			# (ignorespace, ignoredups, history off): name the command from here, the best we can.
			__sb_at_prompt=0
			__sb_line_read=2
			__sb_unrecorded_command_line "$BASH_COMMAND"
			__sb_escape "$__sb_command_line"
			builtin printf '\e]633;E;%s;%s\a' "$__sb_escaped" "$__sb_nonce"
		elif [[ "$__sb_line_read" == 3 ]]; then
			__sb_at_prompt=0
			__sb_line_read=2
		elif ! __sb_ps0_usable; then
			__sb_at_prompt=0
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
	# Last in PROMPT_COMMAND: frameworks before us may have rebuilt PS1 or PS0.
	__sb_wrap_prompt
	__sb_at_prompt=1
	__sb_prompt_histcmd="$HISTCMD"
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
# Whether PROMPT_COMMAND is an array: from its attributes where bash has `@a` (4.4+), which costs
# no fork; a command substitution forks a subshell, ~5 ms of every new terminal's first prompt.
if [[ "${BASH_VERSINFO[0]}" -gt 4 || ( "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 ) ]]; then
	__sb_prompt_command_is_array() { [[ "${PROMPT_COMMAND@a}" == *a* ]]; }
else
	__sb_prompt_command_is_array() { [[ "$(builtin declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; }
fi
if __sb_prompt_command_is_array; then
	PROMPT_COMMAND=('__sb_prompt_command_start "$?"' "${PROMPT_COMMAND[@]}" '__sb_prompt_command_end')
elif [[ -n "${PROMPT_COMMAND:-}" ]]; then
	PROMPT_COMMAND='__sb_prompt_command_start "$?"'$'\n'"$PROMPT_COMMAND"$'\n''__sb_prompt_command_end'
else
	PROMPT_COMMAND='__sb_prompt_command_start "$?"'$'\n''__sb_prompt_command_end'
fi

fi
