# Switchboard shell integration for fish.
#
# Loaded with `fish --init-command 'source <this file> <nonce file>'`, which runs after the user's
# own configuration (so a broken config.fish still gets these hooks). Reports prompts, commands,
# exit codes and the cwd with OSC 633 sequences. Everything we define starts with __sb_.
#
# The per-terminal nonce comes in a private file (0600, in a 0700 directory) named by our first
# argument, not in the environment: config.fish, conf.d and every program they start run before
# this script and would see an environment variable. The file is deleted as soon as it is read.

# Recursion guard: load once per shell.
if not set -q __sb_loaded
    set -g __sb_loaded 1
    set -g __sb_nonce ''
    if set -q argv[1]; and test -f "$argv[1]"; and test -r "$argv[1]"
        read -g __sb_nonce <$argv[1]
        command rm -f -- $argv[1]
    else if set -q SWITCHBOARD_NONCE
        # Sourced by hand with the nonce in the environment (older launchers).
        set -g __sb_nonce "$SWITCHBOARD_NONCE"
    end
    set -e SWITCHBOARD_NONCE
    set -g __sb_command_running 0

    # Escape a value for OSC 633 (VS Code's rules): backslash doubled, ';' and control chars as \xNN.
    function __sb_escape
        set -l value (string replace -a -- '\\' '\\\\' "$argv[1]" | string collect)
        set value (string replace -a -- \n '\\x0a' "$value" | string collect)
        set value (string replace -a -- ';' '\\x3b' "$value" | string collect)
        set value (string replace -a -- \r '\\x0d' "$value" | string collect)
        set value (string replace -a -- \e '\\x1b' "$value" | string collect)
        set value (string replace -a -- \a '\\x07' "$value" | string collect)
        set value (string replace -a -- \t '\\x09' "$value" | string collect)
        builtin printf '%s' "$value"
    end

    function __sb_set_status
        return $argv[1]
    end

    function __sb_preexec --on-event fish_preexec
        set -l line (__sb_escape "$argv[1]")
        builtin printf '\e]633;E;%s;%s\a\e]633;C;%s\a' "$line" "$__sb_nonce" "$__sb_nonce"
        set -g __sb_command_running 1
    end

    function __sb_postexec --on-event fish_postexec
        set -l code $status
        if test "$__sb_command_running" = 1
            builtin printf '\e]633;D;%s;%s\a' $code "$__sb_nonce"
            set -g __sb_command_running 0
        end
    end

    # Before each prompt: report the cwd, and (re)wrap fish_prompt with the prompt marks if it
    # is not ours, since the user's configuration may define it at any time.
    function __sb_on_prompt --on-event fish_prompt
        set -l code $status
        set -l cwd (__sb_escape "$PWD")
        builtin printf '\e]633;P;Cwd=%s\a' "$cwd"
        if functions -q fish_prompt; and not string match -q -- '*__sb_user_fish_prompt*' (functions fish_prompt)
            functions -e __sb_user_fish_prompt
            functions -c fish_prompt __sb_user_fish_prompt
            function fish_prompt
                set -l code $status
                builtin printf '\e]633;A;%s\a' "$__sb_nonce"
                __sb_set_status $code
                __sb_user_fish_prompt
                builtin printf '\e]633;B;%s\a' "$__sb_nonce"
            end
        end
        __sb_set_status $code
    end
end
