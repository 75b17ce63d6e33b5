; A line inside one of these pairs is indented one level more than the line that opens
; it; the closing token goes back to that line's level.

(_
  "{"
  "}" @end) @indent

(_
  "("
  ")" @end) @indent

(_
  "["
  "]" @end) @indent
