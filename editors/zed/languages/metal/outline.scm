; The outline panel and `outline: toggle`. An entry reads as the text of its @context and
; @name captures in source order, so a Metal entry point is listed with its stage:
; `kernel void blur`, `fragment half4 shade`, `[[kernel]] void fill`.

(namespace_definition
  "namespace" @context
  name: (_) @name) @item

(struct_specifier
  "struct" @context
  name: (_) @name
  body: (_)) @item

(class_specifier
  "class" @context
  name: (_) @name
  body: (_)) @item

(union_specifier
  "union" @context
  name: (_) @name
  body: (_)) @item

(enum_specifier
  "enum" @context
  [
    "class"
    "struct"
  ]? @context
  name: (_) @name
  body: (_)) @item

(enumerator
  name: (_) @name) @item

; Members, with their attributes: `float4 position [[position]]`.
(field_declaration
  type: (_) @context
  declarator: (_) @name) @item

(type_definition
  "typedef" @context
  declarator: (_) @name) @item

(alias_declaration
  "using" @context
  name: (_) @name) @item

; Functions. The C++ grammar reads a stage qualifier (`kernel`, `vertex`, `fragment`) as
; the return type and the real return type as a stray word (an error node) or as the
; scope of the name; all of it goes into the entry. A `template <...>` line is not
; repeated: the function under it is the entry.
(function_definition
  (attribute_declaration)* @context
  type: (_) @context
  (ERROR)? @context
  declarator: [
    (function_declarator
      declarator: (_) @name)
    (pointer_declarator
      "*" @context
      declarator: (function_declarator
        declarator: (_) @name))
    (reference_declarator
      "&" @context
      (function_declarator
        declarator: (_) @name))
  ]) @item

; Declarations at file or namespace level: prototypes and program-scope variables such
; as `constant float3 kLuma = ...;`, where the grammar may take `float3` for the
; variable and put the real name in an error node after it.
(translation_unit
  (declaration
    type: (_) @context
    (ERROR)? @context
    declarator: [
      (function_declarator
        declarator: (_) @name)
      (init_declarator
        declarator: (_) @name
        (ERROR)? @name)
      (identifier) @name
    ]) @item)

(declaration_list
  (declaration
    type: (_) @context
    (ERROR)? @context
    declarator: [
      (function_declarator
        declarator: (_) @name)
      (init_declarator
        declarator: (_) @name
        (ERROR)? @name)
      (identifier) @name
    ]) @item)
