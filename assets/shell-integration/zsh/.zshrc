# Switchboard shell integration for zsh, part 3 of 4: the user's .zshrc, then our hooks.
if [[ -f "$USER_ZDOTDIR/.zshrc" && "$USER_ZDOTDIR" != "$__sb_zdotdir" ]]; then
  ZDOTDIR="$USER_ZDOTDIR"
  builtin source "$USER_ZDOTDIR/.zshrc"
  USER_ZDOTDIR="$ZDOTDIR"
  ZDOTDIR="$__sb_zdotdir"
fi

builtin source "$__sb_zdotdir/switchboard.zsh"

# Give ZDOTDIR back to the user: a login shell then reads their .zlogin directly, and shells
# started from this one do not load our files again.
if [[ "$USER_ZDOTDIR" == "$HOME" ]]; then
  builtin unset ZDOTDIR
else
  builtin export ZDOTDIR="$USER_ZDOTDIR"
fi
builtin unset USER_ZDOTDIR
