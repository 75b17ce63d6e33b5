; The body of a macro is Metal code too.

(preproc_def
  value: (preproc_arg) @injection.content
  (#set! injection.language "metal"))

(preproc_function_def
  value: (preproc_arg) @injection.content
  (#set! injection.language "metal"))
