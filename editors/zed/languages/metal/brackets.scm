; Pairs Zed matches and highlights together.

("(" @open ")" @close)

("[" @open "]" @close)

("{" @open "}" @close)

; Metal's attributes: `[[buffer(0)]]`.
(attribute_declaration
  "[[" @open
  "]]" @close)

; Template arguments: `texture2d<float, access::read>`.
(template_argument_list
  "<" @open
  ">" @close)

(template_parameter_list
  "<" @open
  ">" @close)

(string_literal
  "\"" @open
  "\"" @close)

(char_literal
  "'" @open
  "'" @close)
