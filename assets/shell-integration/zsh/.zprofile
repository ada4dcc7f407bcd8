# Switchboard shell integration for zsh, part 2 of 4 (login shells): the user's .zprofile.
if [[ -f "$USER_ZDOTDIR/.zprofile" && "$USER_ZDOTDIR" != "$__sb_zdotdir" ]]; then
  ZDOTDIR="$USER_ZDOTDIR"
  builtin source "$USER_ZDOTDIR/.zprofile"
  USER_ZDOTDIR="$ZDOTDIR"
  ZDOTDIR="$__sb_zdotdir"
fi
