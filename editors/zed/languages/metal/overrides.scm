; Scopes named by `not_in` in config.toml: quotes are not paired inside strings or
; comments.

(comment) @comment.inclusive

[
  (string_literal)
  (raw_string_literal)
  (char_literal)
  (system_lib_string)
] @string
