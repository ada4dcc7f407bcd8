# Switchboard shell integration for zsh, part 1 of 4.
#
# The terminal is started with ZDOTDIR pointing at this directory, so zsh reads our .zshenv,
# .zprofile, .zshrc and .zlogin. Each loads the user's file of the same name from USER_ZDOTDIR
# (their ZDOTDIR, or HOME), with ZDOTDIR set to the user's directory while it runs, exactly as
# zsh would have. .zshrc then adds the hooks and gives ZDOTDIR back to the user.

# Read the per-terminal nonce and drop it from the environment before any user code runs.
typeset -g __sb_nonce="${SWITCHBOARD_NONCE:-}"
builtin unset SWITCHBOARD_NONCE

typeset -g __sb_zdotdir="$ZDOTDIR"
: "${USER_ZDOTDIR:=$HOME}"
if [[ -f "$USER_ZDOTDIR/.zshenv" && "$USER_ZDOTDIR" != "$__sb_zdotdir" ]]; then
  ZDOTDIR="$USER_ZDOTDIR"
  builtin source "$USER_ZDOTDIR/.zshenv"
  # The user's .zshenv may move ZDOTDIR; their other files live there.
  USER_ZDOTDIR="$ZDOTDIR"
  ZDOTDIR="$__sb_zdotdir"
fi
