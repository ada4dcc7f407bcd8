# Switchboard shell integration for zsh, part 4 of 4. Normally unused: .zshrc gives ZDOTDIR back
# to the user, so zsh reads their .zlogin itself. Kept for the case where .zshrc was not read.
if [[ -n "${USER_ZDOTDIR:-}" && -f "$USER_ZDOTDIR/.zlogin" && "$USER_ZDOTDIR" != "$__sb_zdotdir" ]]; then
  ZDOTDIR="$USER_ZDOTDIR"
  builtin source "$USER_ZDOTDIR/.zlogin"
fi
